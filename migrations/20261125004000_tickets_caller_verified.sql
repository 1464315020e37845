-- Whether the ticket was opened with a verified session for its customer. A ticket opened without
-- one holds the caller's own words: the ticket history marks it so that an agent reading it treats
-- its text as a claim, not as instructions. Tickets opened before this column existed are unverified.
ALTER TABLE tickets ADD COLUMN caller_verified boolean NOT NULL DEFAULT false;
