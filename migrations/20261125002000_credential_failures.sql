-- Failed password and token checks, counted per subject (an account, an unknown email, a client IP)
-- so every server process sees the same count: 10 failures within 15 minutes lock the subject for
-- 15 minutes (docs/decisions.md "Login lockout"). A row is written before the check runs and
-- removed again when the check succeeds, so concurrent guesses cannot slip past the count.
CREATE TABLE credential_failures (
  id uuid PRIMARY KEY,
  subject text NOT NULL,
  failed_at timestamptz NOT NULL
);

CREATE INDEX credential_failures_subject_idx ON credential_failures (subject, failed_at);
