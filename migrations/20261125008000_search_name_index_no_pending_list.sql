-- The name index of the search (migration 3000) without GIN's pending list. With fastupdate (the
-- default) new and changed customers' name keys wait in an unsorted list that every search reads
-- in full until VACUUM (or 4 MB of them) merges it: 77 pages of it made up most of the 89 index
-- pages a two-word name read at 1M customers (bench/README.md, round 10). Off, each write puts
-- its keys into the index itself (a customer's name keys: a few index pages per write).
ALTER INDEX subscribers_search_name_keys_idx SET (fastupdate = off);
-- Merge what is pending now (fastupdate off stops new entries, it does not merge the old ones).
SELECT gin_clean_pending_list('subscribers_search_name_keys_idx'::regclass);
