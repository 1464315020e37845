-- Every word of the search documents but the names ('n:') (agent_search_doc_words_added keeps it), so that a query
-- can ask the documents' index for the words a prefix starts one by one (agent_search_doc_prefix). Not unique: two
-- transactions that add the same new word at once both keep it, where a unique key would make the second wait for
-- the first (and two that add two new words in opposite orders deadlock). Words are never removed: a word no
-- document holds any more matches nothing. Existing documents' words come from the next file, in batches; the
-- search reads this table only once the migrations are done.
CREATE TABLE search_doc_words (
  word text COLLATE "C" NOT NULL
);
CREATE INDEX search_doc_words_word_idx ON search_doc_words (word);

CREATE TRIGGER search_documents_words AFTER INSERT OR UPDATE OF doc ON search_documents
  FOR EACH ROW EXECUTE FUNCTION agent_search_doc_words_added();
