-- Settlements that may have moved money are never failed or refunded on a guess.
--
-- 1. The chain transfer of a settlement goes to the destination member's own wallet (an EVM
--    address, EIP-55 checksummed; set with `npm run admin -- members set-wallet`).
ALTER TABLE members ADD COLUMN wallet_address text CHECK (wallet_address ~ '^0x[0-9a-fA-F]{40}$');

-- 2. Every venue call's intent is recorded before the call (*_REQUESTED), so that a crash or a
--    timeout leaves a trace to ask the venue about by reference.
ALTER TABLE settlement_steps DROP CONSTRAINT settlement_steps_step_check;
ALTER TABLE settlement_steps ADD CONSTRAINT settlement_steps_step_check CHECK (step IN (
  'BUY_REQUESTED', 'BUY', 'TRANSFER_REQUESTED', 'TRANSFER', 'TRANSFER_CONFIRMED',
  'SWAP_REQUESTED', 'SWAP', 'WITHDRAWAL_REQUESTED', 'WITHDRAWAL', 'WITHDRAWAL_CONFIRMED'));

-- 3. Settlements parked for an operator: the venue could not say what became of a step's money.
--    A parked settlement keeps its status; nothing automatic moves it until the review is resolved.
CREATE TABLE settlement_reviews (
  review_id      uuid PRIMARY KEY,
  settlement_id  uuid NOT NULL REFERENCES settlements (settlement_id),
  step           text NOT NULL CHECK (step IN ('BUY', 'TRANSFER', 'SWAP', 'WITHDRAWAL')),
  reason         text NOT NULL CHECK (reason IN ('VENUE_UNANSWERED', 'CHAIN_IN_DOUBT', 'ATTEMPTS_EXHAUSTED', 'FAILED_AFTER_MONEY_LEFT')),
  detail         text NOT NULL,
  evidence       jsonb NOT NULL DEFAULT '[]',
  opened_at      timestamptz NOT NULL,
  resolved_at    timestamptz,
  outcome        text CHECK (outcome IN ('MOVED', 'NOT_MOVED')),
  resolved_by    text,
  note           text,
  CHECK ((resolved_at IS NULL) = (outcome IS NULL))
);
CREATE UNIQUE INDEX settlement_reviews_open_idx ON settlement_reviews (settlement_id) WHERE resolved_at IS NULL;
CREATE INDEX settlement_reviews_opened_idx ON settlement_reviews (opened_at DESC);

-- 4. Where a settlement's money is at each step: TREASURY holds the stablecoin bought, IN_TRANSIT
--    what the chain carries until it is final.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('PREFUND', 'PAYOUT_CLEARING', 'FEES', 'FUNDING', 'SOURCE_FUNDS', 'LIQUIDITY', 'TREASURY', 'IN_TRANSIT'));

-- 5. Sandbox venues' faults on request (tests and demos): the next calls of an operation for a
--    reference time out (before or after acting), are refused, or (chain) answer in doubt.
CREATE TABLE sandbox_venue_faults (
  reference  text NOT NULL,
  operation  text NOT NULL,
  fault      text NOT NULL CHECK (fault IN ('TIMEOUT', 'TIMEOUT_AFTER', 'REFUSE', 'IN_DOUBT', 'NOT_SENT')),
  remaining  int NOT NULL CHECK (remaining >= 0),
  PRIMARY KEY (reference, operation)
);
