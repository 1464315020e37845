-- The shipment of an install job (issue 28 §2): staff mark the equipment shipped with the carrier and its
-- tracking reference, which the subscriber is mailed. NULL until the job is SHIPPED.
ALTER TABLE install_jobs
    ADD COLUMN carrier text,
    ADD COLUMN tracking_reference text,
    ADD COLUMN shipped_at timestamp with time zone;
