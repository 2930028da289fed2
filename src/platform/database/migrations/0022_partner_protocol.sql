-- The partner protocol: where each destination member (a payout partner) is reached, the public
-- keys it signs its reports with, the reports it sent, and the operators' changes to all of it.

-- One connection per destination member: the base URL of its implementation of the protocol.
CREATE TABLE partner_connections (
  destination_member_id  text PRIMARY KEY REFERENCES members (member_id),
  base_url               text NOT NULL CHECK (base_url ~ '^https?://' AND length(base_url) <= 500),
  enabled                boolean NOT NULL,
  updated_at             timestamptz NOT NULL DEFAULT now()
);

-- Ed25519 public keys a partner signs with; several may be ACTIVE at once (rotation with overlap).
-- A key id names one key of one partner for ever: a retired key is never brought back.
CREATE TABLE partner_keys (
  key_id                 text PRIMARY KEY CHECK (key_id ~ '^[A-Za-z0-9._:-]{1,100}$'),
  destination_member_id  text NOT NULL REFERENCES members (member_id),
  public_key             bytea NOT NULL CHECK (length(public_key) = 32),
  status                 text NOT NULL CHECK (status IN ('ACTIVE', 'RETIRED')),
  created_at             timestamptz NOT NULL DEFAULT now(),
  retired_at             timestamptz,
  CHECK ((status = 'RETIRED') = (retired_at IS NOT NULL))
);
CREATE INDEX partner_keys_member_idx ON partner_keys (destination_member_id);

-- Every report accepted from a partner, applied or not; (partner, report id) is its identity.
CREATE TABLE partner_reports (
  destination_member_id  text NOT NULL REFERENCES members (member_id),
  report_id              text NOT NULL,
  payout_id              uuid NOT NULL REFERENCES payouts (payout_id),
  status                 text NOT NULL CHECK (status IN ('PAID', 'REJECTED', 'FAILED', 'RETURNED', 'CASH_PICKED_UP')),
  sequence               bigint NOT NULL CHECK (sequence >= 1),
  occurred_at            timestamptz NOT NULL,
  reject_reason          text,
  cashout_status         text,
  -- false: its sequence was at or below one already applied for the payout (recorded, not applied)
  applied                boolean NOT NULL,
  received_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (destination_member_id, report_id)
);
CREATE INDEX partner_reports_payout_idx ON partner_reports (payout_id, sequence);

-- The highest report sequence applied per payout: a report at or below it is stale.
CREATE TABLE partner_report_heads (
  payout_id     uuid PRIMARY KEY REFERENCES payouts (payout_id),
  sequence_max  bigint NOT NULL
);

-- Operators' changes (admin CLI): who, when, what, and the row before and after.
CREATE TABLE admin_audit (
  audit_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  actor       text NOT NULL CHECK (length(actor) BETWEEN 1 AND 200),
  at          timestamptz NOT NULL DEFAULT now(),
  action      text NOT NULL,
  subject     text NOT NULL,
  before      jsonb,
  after       jsonb
);
CREATE INDEX admin_audit_subject_idx ON admin_audit (subject, at);
