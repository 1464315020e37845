-- migrate: batches
-- Each provider's words of the search documents written before the trigger of the file before, 5,000 documents (in
-- customer id order) per transaction: $1 is the last id of the batch before (NULL at first), and the statement answers
-- the last id of its own (NULL: done). The batch's distinct words are each looked up on the index (OFFSET 0 keeps the
-- NOT EXISTS a probe a word): as an anti join the planner hashed the whole table for every batch.
WITH b AS (SELECT subscriber_id, provider_id, doc FROM search_documents WHERE $1::uuid IS NULL OR subscriber_id > $1::uuid ORDER BY subscriber_id LIMIT 5000),
n AS (SELECT DISTINCT b.provider_id, w FROM b CROSS JOIN LATERAL unnest(tsvector_to_array(b.doc)) w WHERE NOT starts_with(w, 'n:')),
i AS (INSERT INTO search_doc_words (provider_id, word)
      SELECT n.provider_id, n.w FROM n
      WHERE NOT EXISTS (SELECT 1 FROM search_doc_words x WHERE x.provider_id = n.provider_id AND x.word = n.w OFFSET 0))
SELECT max(subscriber_id::text) AS last FROM b
