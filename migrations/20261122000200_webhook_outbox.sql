-- Webhook outbox: per-subscription ordering.
--
-- seq orders the deliveries of one subscription by emission (created_at comes from the injected
-- clock and ties within one instant; a sequence never does). A delivery is held back while an
-- older delivery (lower seq) of the same subscription is still pending; blocked_by names the
-- older delivery it waits for, so finishing that one wakes it at once.
ALTER TABLE webhook_deliveries
  ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY,
  ADD COLUMN blocked_by text REFERENCES webhook_deliveries(id);

CREATE INDEX webhook_deliveries_pending_order_idx ON webhook_deliveries (subscription_id, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_blocked_by_idx ON webhook_deliveries (blocked_by) WHERE blocked_by IS NOT NULL;
CREATE INDEX webhook_deliveries_provider_pending_idx ON webhook_deliveries (provider_id) WHERE status = 'pending';
