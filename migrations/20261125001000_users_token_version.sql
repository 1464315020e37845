-- Revocation of login tokens (decisions.md, Safety: JWT). Every token carries the user's
-- token_version at issue; a request whose token holds an older one is refused. A trigger bumps it,
-- so no code path that changes a password, disables an account or changes a role can forget to.
ALTER TABLE users
  ADD COLUMN token_version integer NOT NULL DEFAULT 0,
  ADD COLUMN disabled boolean NOT NULL DEFAULT false;

CREATE OR REPLACE FUNCTION users_bump_token_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.token_version := OLD.token_version + 1;
  RETURN NEW;
END;
$$;

CREATE TRIGGER users_revoke_tokens
  BEFORE UPDATE OF password_hash, role, sp_role, provider_id, disabled ON users
  FOR EACH ROW
  WHEN (OLD.password_hash IS DISTINCT FROM NEW.password_hash
        OR OLD.role IS DISTINCT FROM NEW.role
        OR OLD.sp_role IS DISTINCT FROM NEW.sp_role
        OR OLD.provider_id IS DISTINCT FROM NEW.provider_id
        OR OLD.disabled IS DISTINCT FROM NEW.disabled)
  EXECUTE FUNCTION users_bump_token_version();
