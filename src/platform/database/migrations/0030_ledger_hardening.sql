-- The ledger hardened against what code review cannot catch: a crash retried, a stray statement.
--
-- 1. One transfer per (reference, leg): payouts' and settlements' transfers take as id a name-based
--    UUID of their reference and leg (src/ledger/transfer-ids.ts), so the primary key refuses the
--    same movement made twice (a step retried after a crash). No second unique index: measured,
--    it cost about a fifth of the reservation rate, and the primary key already does the job.

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
