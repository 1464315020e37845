-- The provider index of the outbox covers exactly what releaseWaiting() looks for (pending, never
-- attempted, not held behind an older delivery) instead of every pending delivery.
--
-- With the wider predicate (status = 'pending' only) it matched every query about pending
-- deliveries, and with statistics taken while nothing was pending the planner took a walk over it
-- (filtering on subscription and seq) for the per-delivery order check, the locked order check and
-- the follower lookup: cheap when the outbox is empty, but during a burst all of a provider's
-- deliveries are pending and every check walked all of them. Now those queries can only use the
-- indexes made for them ((subscription_id, seq) and blocked_by).
CREATE INDEX webhook_deliveries_provider_waiting_idx ON webhook_deliveries (provider_id)
  WHERE status = 'pending' AND attempts = 0 AND blocked_by IS NULL;
DROP INDEX webhook_deliveries_provider_pending_idx;
