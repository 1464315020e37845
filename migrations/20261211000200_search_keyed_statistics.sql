-- The two keyed indexes' expressions (20261211000000, 20261211000100) get their statistics (a key's share of the
-- rows) before this release serves: the planner reads them to choose an index. ANALYZE samples rows and takes no
-- lock that stops reads or writes.
ANALYZE search_documents;
ANALYZE subscribers;
