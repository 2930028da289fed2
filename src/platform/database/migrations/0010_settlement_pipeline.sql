-- The settlement pipeline. Each step records what it did (order ids, transaction hash, amounts,
-- times) in the transaction that moves the settlement on and enqueues the next step, so that a
-- retry after a crash continues instead of repeating.
CREATE TABLE settlement_steps (
  settlement_id  uuid NOT NULL REFERENCES settlements (settlement_id),
  step           text NOT NULL CHECK (step IN ('BUY', 'TRANSFER', 'TRANSFER_CONFIRMED', 'SWAP', 'WITHDRAWAL', 'WITHDRAWAL_CONFIRMED')),
  result         jsonb NOT NULL,
  done_at        timestamptz NOT NULL,
  PRIMARY KEY (settlement_id, step)
);

-- Sandbox control: the next step of this settlement fails for good.
ALTER TABLE settlements ADD COLUMN fail_next_step boolean NOT NULL DEFAULT false;

-- Ledger accounts of settlements: SOURCE_FUNDS is what a source member sends in (outside the
-- ledger before it arrives); LIQUIDITY is the service's own pool in a currency, through which a
-- settlement's legs pass (source currency in, destination currency out), so each currency balances.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('PREFUND', 'PAYOUT_CLEARING', 'FEES', 'FUNDING', 'SOURCE_FUNDS', 'LIQUIDITY'));

-- The sandbox venues' own memory (exchange orders, chain transfers, bank deposits), by the
-- reference the service gave: asked again with the same reference, a venue answers as it did.
CREATE TABLE sandbox_venue_operations (
  reference   text PRIMARY KEY,
  result      jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX sandbox_venue_operations_tx_idx ON sandbox_venue_operations ((result ->> 'txHash')) WHERE result ? 'txHash';
CREATE INDEX sandbox_venue_operations_deposit_idx ON sandbox_venue_operations ((result ->> 'depositId')) WHERE result ? 'depositId';
