-- The prefund ledger: double-entry and append-only. Amounts are integers of the currency's minor
-- unit. An account's running totals are maintained in the same transaction as every transfer that
-- moves them (they are derived from the transfers, never written on their own), so a balance is
-- read without summing history; test/ledger checks that they always equal the sums.
CREATE TABLE ledger_accounts (
  account_id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- PREFUND: a source member's funds held at a destination member (the service owes them);
  -- PAYOUT_CLEARING: paid out through the destination member; FEES: the service's fee income;
  -- FUNDING: money entering or leaving the ledger (settlements, sandbox top-ups)
  kind                   text NOT NULL CHECK (kind IN ('PREFUND', 'PAYOUT_CLEARING', 'FEES', 'FUNDING')),
  source_member_id       text REFERENCES members (member_id),
  destination_member_id  text REFERENCES members (member_id),
  currency               text NOT NULL CHECK (currency ~ '^[A-Z]{3,4}$'),
  -- an account that may never be overdrawn: available = credits - debits - pending debits >= 0
  no_overdraft           boolean NOT NULL,
  debits_posted          numeric(30, 0) NOT NULL DEFAULT 0 CHECK (debits_posted >= 0),
  credits_posted         numeric(30, 0) NOT NULL DEFAULT 0 CHECK (credits_posted >= 0),
  debits_pending         numeric(30, 0) NOT NULL DEFAULT 0 CHECK (debits_pending >= 0),
  credits_pending        numeric(30, 0) NOT NULL DEFAULT 0 CHECK (credits_pending >= 0),
  created_at             timestamptz NOT NULL DEFAULT now(),
  CHECK (NOT no_overdraft OR credits_posted - debits_posted - debits_pending >= 0)
);
CREATE UNIQUE INDEX ledger_accounts_identity_idx ON ledger_accounts
  (kind, coalesce(source_member_id, ''), coalesce(destination_member_id, ''), currency);

CREATE TABLE ledger_transfers (
  transfer_id        uuid PRIMARY KEY,
  debit_account_id   bigint NOT NULL REFERENCES ledger_accounts (account_id),
  credit_account_id  bigint NOT NULL REFERENCES ledger_accounts (account_id),
  amount             numeric(30, 0) NOT NULL CHECK (amount > 0),
  currency           text NOT NULL,
  -- PENDING is a reservation; it ends POSTED or VOIDED. A transfer made POSTED at once never was pending.
  state              text NOT NULL CHECK (state IN ('PENDING', 'POSTED', 'VOIDED')),
  two_phase          boolean NOT NULL,
  reason             text NOT NULL,
  reference          text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  resolved_at        timestamptz,
  CHECK (debit_account_id <> credit_account_id),
  CHECK (two_phase OR state = 'POSTED')
);
CREATE INDEX ledger_transfers_reference_idx ON ledger_transfers (reference);
CREATE INDEX ledger_transfers_pending_idx ON ledger_transfers (debit_account_id) WHERE state = 'PENDING';

-- Append-only: a transfer is never deleted, and the only change ever made to one is the end of
-- a reservation (PENDING to POSTED or VOIDED). Corrections are new transfers.
CREATE FUNCTION ledger_transfers_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'ledger transfers are append-only';
  END IF;
  IF OLD.state <> 'PENDING' OR NEW.state NOT IN ('POSTED', 'VOIDED')
     OR (NEW.transfer_id, NEW.debit_account_id, NEW.credit_account_id, NEW.amount, NEW.currency, NEW.two_phase, NEW.reason, NEW.reference, NEW.created_at)
        IS DISTINCT FROM
        (OLD.transfer_id, OLD.debit_account_id, OLD.credit_account_id, OLD.amount, OLD.currency, OLD.two_phase, OLD.reason, OLD.reference, OLD.created_at)
  THEN
    RAISE EXCEPTION 'ledger transfer % may only move from PENDING to POSTED or VOIDED', OLD.transfer_id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_transfers_append_only BEFORE UPDATE OR DELETE ON ledger_transfers
  FOR EACH ROW EXECUTE FUNCTION ledger_transfers_append_only();
