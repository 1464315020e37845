-- subscriptions_subscriber_locations_idx (migration 20261122001100) has the same key, subscriber_id,
-- and carries columns besides; every plan reads that one. The plain index only cost each new
-- subscription one more index entry (30 MB at a million subscriptions).
DROP INDEX subscriptions_subscriber_idx;
