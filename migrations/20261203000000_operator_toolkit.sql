-- The operator toolkit (npm run ops, /api/v1/admin): key rotation with an overlap window, and the
-- natural key the inventory import upserts buildings by (docs/import.md).

-- A rotated key keeps working until expires_at (the overlap window); NULL: no expiry. Every check of
-- an "active" key reads revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now).
ALTER TABLE api_keys ADD COLUMN expires_at timestamp with time zone;
-- The key a rotation replaced this one with (the operator's trail).
ALTER TABLE api_keys ADD COLUMN replaced_by uuid;

-- The provider's own reference of a building (e.g. its property code): the import's natural key,
-- which units and switch ports name. NULL for buildings made before the import existed.
ALTER TABLE buildings ADD COLUMN ref text;
CREATE UNIQUE INDEX buildings_provider_ref_key ON buildings USING btree (provider_id, ref) WHERE (ref IS NOT NULL);
