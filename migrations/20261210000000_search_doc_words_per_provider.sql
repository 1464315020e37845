-- Each provider's own search-document words (agent_search_doc_prefix and agent_search_doc_number read them for
-- one provider). With one list for every provider, whoever wrote addresses added words to everyone's prefixes: 33
-- words under a prefix turned it back into a prefix, which the documents' index gathers in full, for every
-- provider's searches (docs/security.md). Rows of provider_id NULL are the shared list of the release before, which
-- its processes still read while this one starts (a NULL row is any provider's word to them, so the rows this release
-- adds keep their answers right), and which the provider's words are read with until the backfill is done; the release
-- after drops them with the one-argument functions (migrations/README.md, "Waiting for the next release"). The new
-- trigger replaces the old one in this transaction, and the next file adds every existing document's words for its
-- provider.
ALTER TABLE search_doc_words ADD COLUMN provider_id uuid;
CREATE INDEX search_doc_words_provider_word_idx ON search_doc_words (provider_id, word);

DROP TRIGGER search_documents_words ON search_documents;
CREATE TRIGGER search_documents_provider_words AFTER INSERT OR UPDATE OF doc, provider_id ON search_documents
  FOR EACH ROW EXECUTE FUNCTION agent_search_doc_provider_words_added();
