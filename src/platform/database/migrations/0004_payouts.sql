-- Payouts. Amounts are exact decimals in the payout currency. The row carries the lifecycle
-- state, the submission bookkeeping that makes `process` safe to retry, and the original create
-- answer for idempotent replay.
CREATE TABLE payouts (
  payout_id                uuid PRIMARY KEY,
  source_member_id         text NOT NULL REFERENCES members (member_id),
  source_member_payout_id  text NOT NULL CHECK (length(source_member_payout_id) BETWEEN 1 AND 50),
  request_fingerprint      text NOT NULL,
  payout_provider_id       text NOT NULL REFERENCES payout_providers (payout_provider_id),
  destination_member_id    text NOT NULL REFERENCES members (member_id),
  payout_method            text NOT NULL CHECK (payout_method IN ('BANK_ACCOUNT', 'CASH_PICKUP', 'WALLET')),
  segment                  text NOT NULL CHECK (segment IN ('C2C', 'B2B')),
  destination_ccy          text NOT NULL CHECK (destination_ccy ~ '^[A-Z]{3}$'),
  payout_amt               numeric(22, 4) NOT NULL CHECK (payout_amt > 0),
  transfer_fee             numeric(22, 4) NOT NULL CHECK (transfer_fee >= 0),
  payout_status            text NOT NULL CHECK (payout_status IN ('RCVD', 'ACCP', 'PNDG', 'PRCD', 'RJCT', 'CNCL', 'EXPD', 'FAIL', 'RVSD')),
  cashout_status           text,
  reject_reason            text,
  cancellation_status      text CHECK (cancellation_status IN ('ACCP', 'PNDG', 'PRCD', 'RJCT')),
  cancellation_reason      text,
  -- NONE: never sent; SUBMITTING: recorded, the partner call may or may not have happened;
  -- SUBMITTED: the partner answered and its answer is applied
  submission_state         text NOT NULL DEFAULT 'NONE' CHECK (submission_state IN ('NONE', 'SUBMITTING', 'SUBMITTED')),
  sender                   jsonb NOT NULL,
  beneficiary              jsonb NOT NULL,
  compliance_info          jsonb,
  sender_name              text NOT NULL,
  beneficiary_name         text NOT NULL,
  sender_country           text,
  beneficiary_country      text,
  creation_time            timestamptz NOT NULL,
  expiry_time              timestamptz NOT NULL,
  initiate_time            timestamptz,
  completion_time          timestamptz,
  rejection_time           timestamptz,
  cancellation_time        timestamptz,
  event_sequence           integer NOT NULL DEFAULT 0,
  create_response          jsonb NOT NULL,
  UNIQUE (source_member_id, source_member_payout_id)
);
CREATE INDEX payouts_member_creation_idx ON payouts (source_member_id, creation_time DESC, payout_id DESC);
CREATE INDEX payouts_member_status_idx ON payouts (source_member_id, payout_status, creation_time DESC);
CREATE INDEX payouts_member_completion_idx ON payouts (source_member_id, completion_time);

-- The outbox: every payout status and cancellation status change, in the transaction that made it.
CREATE TABLE events (
  event_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  member_id     text NOT NULL REFERENCES members (member_id),
  type          text NOT NULL,
  resource_id   text NOT NULL,
  -- per resource, 1, 2, 3 … in the order the changes happened
  sequence      integer NOT NULL,
  data          jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (resource_id, sequence)
);
CREATE INDEX events_member_idx ON events (member_id, event_id);

-- The sandbox rails' own memory: what each simulated partner was asked, so that a resubmission
-- with the same payout id is answered as the first one was and nothing is paid twice.
CREATE TABLE sandbox_rail_submissions (
  payout_id      uuid PRIMARY KEY,
  outcome        jsonb NOT NULL,
  submissions    integer NOT NULL DEFAULT 1,
  cancelled      boolean NOT NULL DEFAULT false,
  first_at       timestamptz NOT NULL DEFAULT now()
);
