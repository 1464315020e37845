-- runNow() on a job that is running at that moment (it is about to defer itself, e.g. a webhook
-- delivery that saw an older delivery still pending): the wake-up is remembered here, and the
-- deferral it then asks for is cut to "due now" instead of being lost.
ALTER TABLE jobs ADD COLUMN wake_requested boolean NOT NULL DEFAULT false;
