-- migrate: batches
-- The search document of every customer that has none, 5,000 customers (in id order) per transaction: $1 is the
-- last id of the batch before (NULL at first), and the statement answers the last id of its own (NULL: done).
WITH b AS (SELECT id FROM subscribers WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT 5000),
i AS (INSERT INTO search_documents (subscriber_id, provider_id, doc)
      SELECT s.id, s.provider_id, agent_search_doc(s.id) FROM b JOIN subscribers s ON s.id = b.id
      ON CONFLICT (subscriber_id) DO NOTHING)
SELECT max(id::text) AS last FROM b
