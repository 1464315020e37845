-- migrate: no-transaction
-- The word passes' candidates (migrations/functions/agent_search_doc.sql), built beside reads and writes.
CREATE INDEX CONCURRENTLY IF NOT EXISTS search_documents_doc_idx ON search_documents USING gin (doc)
