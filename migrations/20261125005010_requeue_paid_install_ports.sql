-- Repair after the install-path fix (issue "Faithful to the spec", item 1). confirm-install used to queue
-- the port job while a service-billed subscription was still PENDING_INSTALL; the job failed for good on
-- that status, and the payment then made the subscription ACTIVE without queuing anything: paid for, never
-- connected. Every ACTIVE subscription left in that state (a failed install port job with that error, and
-- no port job that succeeded, waits or runs) gets its port job queued again, as the payment now does.
INSERT INTO jobs (id, kind, payload, max_attempts, provider_id, subscription_id, run_at, created_at, updated_at)
SELECT gen_random_uuid(), 'provisioning.port', jsonb_build_object('subscription_id', s.id, 'reason', 'install'), 6,
  s.provider_id, s.id, now(), now(), now()
FROM subscriptions s
WHERE s.status = 'ACTIVE' AND s.location_id IS NOT NULL
  AND EXISTS (
    SELECT 1 FROM jobs j
    WHERE j.subscription_id = s.id AND j.kind = 'provisioning.port' AND j.status = 'failed'
      AND j.payload->>'reason' = 'install' AND j.last_error LIKE 'Subscription is PENDING_INSTALL%')
  AND NOT EXISTS (
    SELECT 1 FROM jobs j WHERE j.subscription_id = s.id AND j.kind = 'provisioning.port' AND j.status <> 'failed');
