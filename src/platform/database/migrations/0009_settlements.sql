-- Settlements: cross-border movements into a source member's prefund at a destination member,
-- at a rate locked before creation. Amounts: settlement_amt and pending_amt in the source currency,
-- settlement_amt_received in the destination currency (set on completion).
CREATE TABLE settlements (
  settlement_id            uuid PRIMARY KEY,
  source_member_id         text NOT NULL,
  destination_member_id    text NOT NULL,
  source_ccy               text NOT NULL CHECK (source_ccy ~ '^[A-Z]{3}$'),
  destination_ccy          text NOT NULL CHECK (destination_ccy ~ '^[A-Z]{3}$'),
  settlement_amt           numeric(20, 4) NOT NULL CHECK (settlement_amt > 0),
  pending_amt              numeric(20, 4) NOT NULL CHECK (pending_amt >= 0 AND pending_amt <= settlement_amt),
  rate                     numeric(24, 6) NOT NULL CHECK (rate > 0),
  rate_id                  uuid NOT NULL UNIQUE REFERENCES settlement_rates (rate_id),
  execution_interval       text NOT NULL CHECK (execution_interval IN
                             ('IMMEDIATE', 'ONE_HOUR', 'TWO_HOURS', 'THREE_HOURS', 'FOUR_HOURS', 'FIVE_HOURS', 'SIX_HOURS')),
  settlement_status        text NOT NULL CHECK (settlement_status IN ('S100_SCHEDULED', 'S200_RECEIVED', 'S300_IN_PROGRESS',
                             'S400_FIAT_WITHDRAWAL_IN_PROGRESS', 'S500_TERMINATED', 'S600_COMPLETED', 'S700_FAILED')),
  settlement_amt_received  numeric(24, 4) CHECK (settlement_amt_received >= 0),
  notes                    text CHECK (length(notes) <= 500),
  failure_reason           text,
  creation_time            timestamptz NOT NULL,
  due_date                 timestamptz NOT NULL,
  completion_time          timestamptz,
  event_sequence           integer NOT NULL CHECK (event_sequence >= 1),
  CHECK ((settlement_status = 'S600_COMPLETED') = (completion_time IS NOT NULL AND settlement_amt_received IS NOT NULL))
);
CREATE INDEX settlements_member_creation_idx ON settlements (source_member_id, creation_time DESC, settlement_id DESC);
CREATE INDEX settlements_unfinished_idx ON settlements (source_member_id, destination_member_id, destination_ccy)
  WHERE settlement_status IN ('S100_SCHEDULED', 'S200_RECEIVED', 'S300_IN_PROGRESS', 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');

-- Idempotency-Key (IETF httpapi draft): the first request with a key claims it (IN_PROGRESS), and
-- its answer is stored in the transaction that does the work (DONE). Kept 24 hours. A claim whose
-- request died before finishing (nothing was committed with it) may be taken over after a while.
CREATE TABLE idempotency_keys (
  member_id            text NOT NULL,
  operation            text NOT NULL,
  idempotency_key      text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  request_fingerprint  text NOT NULL,
  state                text NOT NULL CHECK (state IN ('IN_PROGRESS', 'DONE')),
  response_status      integer,
  response_body        jsonb,
  claimed_at           timestamptz NOT NULL,
  expires_at           timestamptz NOT NULL,
  PRIMARY KEY (member_id, operation, idempotency_key),
  CHECK ((state = 'DONE') = (response_status IS NOT NULL AND response_body IS NOT NULL))
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);
