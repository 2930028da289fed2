-- Webhook delivery without cross-member starvation: a circuit per endpoint, and delivery jobs put
-- back behind fresh work.

-- The endpoint's circuit (webhooks/circuit.ts): failed attempts in a row; once they reach the
-- configured bound the circuit is open until circuit_open_until, and its deliveries are put back
-- without an attempt. After that, one delivery at a time is sent as a probe (half open; the probe
-- is out until circuit_probe_until): a success closes the circuit, a failure opens it again.
ALTER TABLE webhook_endpoints
  ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  ADD COLUMN circuit_open_until timestamptz,
  ADD COLUMN circuit_probe_until timestamptz;

-- A delivery put back without an attempt (its member at its share of the delivery workers, its
-- endpoint busy, or its circuit open) goes behind fresh work: graphile-worker takes jobs by
-- priority first (lower first), then by run_at, so every member's new deliveries and retries
-- (priority 0) are taken before a flooded member's put-back backlog (priority 1). The payload
-- counts the times it was put back, so that a backlog that keeps finding its member slow backs off.
CREATE FUNCTION defer_webhook_delivery_jobs(delivery_ids uuid[], attempts integer[], run_ats timestamptz[], deferrals integer[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(cardinality(delivery_ids), 0) = 0 THEN
    RETURN;
  END IF;
  PERFORM graphile_worker.add_jobs(array_agg((
    'webhooks.deliver', json_build_object('deliveryId', j.delivery_id, 'attempt', j.attempt, 'deferrals', j.deferrals), NULL, j.run_at, NULL, NULL, 1, NULL
  )::graphile_worker.job_spec))
    FROM unnest(delivery_ids, attempts, run_ats, deferrals) AS j(delivery_id, attempt, run_at, deferrals);
END;
$$;
