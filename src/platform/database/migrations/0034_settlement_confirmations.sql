-- The destination side of a settlement through the partner protocol: the notice the service sends
-- the destination member (what it is to credit, at the locked rate), the member's signed
-- confirmation that it credited it, and every confirmation refused for an operator to review.

-- One notice per settlement, written before it is sent (the intent); the partner's id once it answered.
CREATE TABLE settlement_notices (
  reference              text PRIMARY KEY CHECK (length(reference) BETWEEN 1 AND 100),
  settlement_id          uuid NOT NULL UNIQUE REFERENCES settlements (settlement_id),
  destination_member_id  text NOT NULL REFERENCES members (member_id),
  currency               text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  -- settlementAmt * locked rate, half-up to the currency's minor unit
  credit_amount          numeric(24, 4) NOT NULL CHECK (credit_amount > 0),
  partner_notice_id      text CHECK (length(partner_notice_id) BETWEEN 1 AND 100),
  created_at             timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX settlement_notices_partner_idx ON settlement_notices (destination_member_id, partner_notice_id);

-- The partner's confirmation: recorded once, and only with the agreed amount and currency.
CREATE TABLE settlement_confirmations (
  settlement_id          uuid PRIMARY KEY REFERENCES settlement_notices (settlement_id),
  destination_member_id  text NOT NULL REFERENCES members (member_id),
  credited_amount        numeric(24, 4) NOT NULL,
  currency               text NOT NULL,
  credited_at            timestamptz NOT NULL,
  partner_credit_id      text NOT NULL CHECK (length(partner_credit_id) BETWEEN 1 AND 100),
  received_at            timestamptz NOT NULL DEFAULT now()
);

-- Confirmations refused because they differ from what was agreed or from the one recorded: an
-- incident for an operator, kept as received (the amount as the partner wrote it).
CREATE TABLE settlement_confirmation_refusals (
  refusal_id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  settlement_id          uuid NOT NULL REFERENCES settlement_notices (settlement_id),
  destination_member_id  text NOT NULL REFERENCES members (member_id),
  reason                 text NOT NULL CHECK (reason IN ('AMOUNT_MISMATCH', 'CONFIRMATION_CHANGED')),
  credited_amount        text NOT NULL,
  currency               text NOT NULL,
  credited_at            timestamptz NOT NULL,
  partner_credit_id      text NOT NULL,
  received_at            timestamptz NOT NULL DEFAULT now(),
  reviewed_at            timestamptz
);
CREATE INDEX settlement_confirmation_refusals_open_idx ON settlement_confirmation_refusals (received_at) WHERE reviewed_at IS NULL;
