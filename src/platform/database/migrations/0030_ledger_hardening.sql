-- The ledger hardened against what code review cannot catch: a crash retried, a stray statement.
--
-- 1. One transfer per (reference, leg): a payout's or a settlement's step run again after a crash
--    can never make the same movement twice. The leg is the transfer's reason (PAYOUT, PAYOUT_FEE,
--    SETTLEMENT_IN, ...); movements that may repeat under one reference (sandbox top-ups) are not legs.
CREATE UNIQUE INDEX ledger_transfers_reference_leg_idx ON ledger_transfers (reference, reason)
  WHERE reason IN ('PAYOUT', 'PAYOUT_FEE', 'PAYOUT_LATE_CHARGE', 'PAYOUT_FEE_LATE_CHARGE', 'PAYOUT_REVERSAL', 'PAYOUT_FEE_REVERSAL',
                   'SETTLEMENT_IN', 'SETTLEMENT_OUT', 'SETTLEMENT_REFUND');

-- 2. TRUNCATE bypasses the row triggers that keep transfers append-only: refuse it (accounts
--    refuse it already: migration 0007).
CREATE FUNCTION ledger_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: TRUNCATE of % is refused', TG_TABLE_NAME;
END $$;
CREATE TRIGGER ledger_transfers_no_truncate BEFORE TRUNCATE ON ledger_transfers FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_truncate();

-- 3. Account totals move only with their transfers: the ledger's statements (src/ledger/repo.ts)
--    turn on the transaction-local setting ledger.writing in the statement that changes them; any
--    other change of a total (a hand-written UPDATE, a new account born with totals) is refused.
--    It guards against mistakes, not against someone who sets the flag on purpose: the ledger
--    check (npm run admin -- ledger check) finds what that would break.
CREATE FUNCTION ledger_accounts_totals_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('ledger.writing', true), '') <> 'on' THEN
    RAISE EXCEPTION 'ledger account totals change only with their transfers (account %)', NEW.account_id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_accounts_totals_guard BEFORE UPDATE ON ledger_accounts FOR EACH ROW
  WHEN ((NEW.debits_committed, NEW.credits_committed) IS DISTINCT FROM (OLD.debits_committed, OLD.credits_committed))
  EXECUTE FUNCTION ledger_accounts_totals_guard();
CREATE TRIGGER ledger_accounts_totals_born_zero BEFORE INSERT ON ledger_accounts FOR EACH ROW
  WHEN (NEW.debits_committed <> 0 OR NEW.credits_committed <> 0)
  EXECUTE FUNCTION ledger_accounts_totals_guard();
