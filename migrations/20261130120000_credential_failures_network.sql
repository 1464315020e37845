-- Login lockout per account and client network (docs/decisions.md "Login lockout", issue 30 §3): 10 failures of
-- one subject from one network (an IPv4 address, an IPv6 /64) within 15 minutes lock that network out for 15
-- minutes; across networks, more than 50 failures of the subject within an hour slow every further attempt down.
-- Rows written before this change have no network: they count towards the hour, never towards a network's lock.
ALTER TABLE credential_failures ADD COLUMN network text;
CREATE INDEX credential_failures_network_idx ON credential_failures USING btree (subject, network, failed_at);
