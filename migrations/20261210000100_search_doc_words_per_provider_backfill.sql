-- migrate: batches
-- Each provider's words of the search documents written before the trigger of the file before, 5,000 documents (in
-- customer id order) per transaction: $1 is the last id of the batch before (NULL at first), and the statement answers
-- the last id of its own (NULL: done).
WITH b AS (SELECT subscriber_id, provider_id, doc FROM search_documents WHERE $1::uuid IS NULL OR subscriber_id > $1::uuid ORDER BY subscriber_id LIMIT 5000),
i AS (INSERT INTO search_doc_words (provider_id, word)
      SELECT DISTINCT b.provider_id, w FROM b CROSS JOIN LATERAL unnest(tsvector_to_array(b.doc)) w
      WHERE NOT starts_with(w, 'n:')
        AND NOT EXISTS (SELECT 1 FROM search_doc_words x WHERE x.provider_id = b.provider_id AND x.word = w))
SELECT max(subscriber_id::text) AS last FROM b
