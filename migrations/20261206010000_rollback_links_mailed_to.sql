-- The address a change-confirmation mail (with its undo link) was sent to, so the agent can say
-- where it went and resend it to the same address (issue 31 §3). NULL for links made before.
ALTER TABLE rollback_links ADD COLUMN mailed_to text;
