-- migrate: no-transaction
-- The search documents' words led by their provider's key (migrations/functions/agent_search_doc_keyed.sql), built
-- beside reads and writes; the word passes and the name-and-place probe read it once this release serves. Without a
-- GIN pending list, as search_documents_doc_idx (20261209000200).
CREATE INDEX CONCURRENTLY IF NOT EXISTS search_documents_keyed_idx ON search_documents USING gin (agent_search_doc_keyed(provider_id, doc)) WITH (fastupdate = off)
