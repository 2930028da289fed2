-- Notifications: the events list and webhook delivery (CONTRACT section 6).

-- Every event gets the identifier members see (eventId) and the transaction that wrote it. Event
-- ids (the identity column) are handed out when rows are inserted, not when their transactions
-- commit, so a reader paging by event_id alone could pass over an event whose transaction commits
-- late. Readers page by (txid, event_id) instead, and only over transactions older than every
-- transaction still running (txid < xmin of the reader's snapshot): an event that becomes visible
-- later always sorts after everything already read, so a cursor never skips one.
ALTER TABLE events
  ADD COLUMN event_key uuid NOT NULL DEFAULT gen_random_uuid(),
  ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE UNIQUE INDEX events_event_key_idx ON events (event_key);
DROP INDEX events_member_idx;
CREATE INDEX events_member_order_idx ON events (member_id, txid, event_id);
CREATE INDEX events_created_at_idx ON events (created_at);

CREATE TABLE webhook_endpoints (
  webhook_endpoint_id  uuid PRIMARY KEY,
  member_id            text NOT NULL REFERENCES members (member_id),
  url                  text NOT NULL,
  event_types          text[] NOT NULL,
  -- the signing secret, encrypted under a key derived from CLIENT_SECRET_KEY (webhooks/secrets.ts)
  secret_sealed        text NOT NULL,
  status               text NOT NULL DEFAULT 'ENABLED' CHECK (status IN ('ENABLED', 'DISABLED', 'DELETED')),
  status_reason        text,
  creation_time        timestamptz NOT NULL DEFAULT now(),
  status_time          timestamptz
);
CREATE INDEX webhook_endpoints_member_idx ON webhook_endpoints (member_id) WHERE status = 'ENABLED';

-- One delivery per (event, endpoint): the unit that is retried, and that an operator redelivers.
CREATE TABLE webhook_deliveries (
  delivery_id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  webhook_endpoint_id  uuid NOT NULL REFERENCES webhook_endpoints (webhook_endpoint_id),
  event_id             bigint NOT NULL,
  member_id            text NOT NULL,
  status               text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
  attempts             integer NOT NULL DEFAULT 0,
  last_error           text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  next_attempt_at      timestamptz,
  completed_at         timestamptz,
  UNIQUE (event_id, webhook_endpoint_id)
);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (webhook_endpoint_id, status);
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (member_id, completed_at) WHERE status = 'FAILED';

-- Every attempt, as the operator sees it: when, the answer's status or the error, how long it took.
CREATE TABLE webhook_attempts (
  delivery_id      uuid NOT NULL REFERENCES webhook_deliveries (delivery_id) ON DELETE CASCADE,
  attempt          integer NOT NULL,
  attempted_at     timestamptz NOT NULL,
  response_status  integer,
  latency_ms       integer NOT NULL,
  error            text,
  PRIMARY KEY (delivery_id, attempt)
);

-- Fan-out in the transaction that writes the events: one delivery and one job per (event,
-- endpoint subscribed to its type). Written as a trigger so that every path that writes events
-- (payouts, cancellations, settlements) enqueues its deliveries without knowing about webhooks.
-- No named queue per endpoint (graphile-worker locks every named queue's row on each fetch, which
-- would tax every job of the service): the delivery task itself bounds how many requests one
-- endpoint may have in flight (webhooks/deliver.ts).
-- The one place that makes delivery jobs: the trigger below, the next attempt, a job put back,
-- and a redelivery all come here. The payload {deliveryId, attempt} names the attempts already
-- made, so that a job whose delivery has moved on does nothing (webhooks/deliver.ts). Written in
-- plpgsql so that graphile-worker's schema (migrated after ours) is needed only when it runs.
CREATE FUNCTION enqueue_webhook_delivery_jobs(delivery_ids uuid[], attempts integer[], run_ats timestamptz[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(cardinality(delivery_ids), 0) = 0 THEN
    RETURN;
  END IF;
  PERFORM graphile_worker.add_jobs(array_agg((
    'webhooks.deliver', json_build_object('deliveryId', j.delivery_id, 'attempt', j.attempt), NULL, j.run_at, NULL, NULL, NULL, NULL
  )::graphile_worker.job_spec))
    FROM unnest(delivery_ids, attempts, run_ats) AS j(delivery_id, attempt, run_at);
END;
$$;

CREATE FUNCTION enqueue_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  added integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE status = 'ENABLED') THEN
    RETURN NULL;
  END IF;
  WITH due AS (
    INSERT INTO webhook_deliveries (webhook_endpoint_id, event_id, member_id)
    SELECT w.webhook_endpoint_id, e.event_id, e.member_id
      FROM new_events e
      JOIN webhook_endpoints w ON w.member_id = e.member_id AND w.status = 'ENABLED' AND e.type = ANY (w.event_types)
    RETURNING delivery_id
  )
  SELECT count(*) INTO added FROM (
    SELECT enqueue_webhook_delivery_jobs(array_agg(delivery_id), array_agg(0), array_agg(NULL::timestamptz)) FROM due
  ) AS jobs;
  RETURN NULL;
END;
$$;

CREATE TRIGGER events_enqueue_webhook_deliveries AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION enqueue_webhook_deliveries();
