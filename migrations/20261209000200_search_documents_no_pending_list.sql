-- The search documents' index without a GIN pending list, as the name index (baseline): with one, every search read
-- the whole list of documents written since the last VACUUM merged it (bench/README.md, "Prefixes asked as whole
-- words"). Turning it off leaves the list as it is, so it is merged here.
-- Both take a SHARE UPDATE EXCLUSIVE lock: reads and writes go on.
ALTER INDEX search_documents_doc_idx SET (fastupdate = off);
SELECT gin_clean_pending_list('search_documents_doc_idx');
