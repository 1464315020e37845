-- The trigger users_revoke_tokens (baseline) calls this on a password, role, sp_role, provider or
-- disabled change: older login tokens carry an older version and are refused (decisions.md, Safety).
CREATE OR REPLACE FUNCTION users_bump_token_version() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  NEW.token_version := OLD.token_version + 1;
  RETURN NEW;
END;
$$;
