-- Payout creation inserts payouts, their events and their ledger transfers in batches. A foreign
-- key costs a lookup and a row lock (FOR KEY SHARE) per inserted row: under `npm run bench` these
-- checks were about 40% of the payout insert and half of the transfer insert. They are replaced
-- by what makes them redundant:
-- - the rows they pointed to are never deleted (the triggers below refuse it);
-- - the service resolves every id before it inserts: members from the access token, providers
--   from the catalogue, ledger accounts locked (FOR UPDATE) in the same transaction;
-- - checkLedger (src/ledger/service.ts) reports any transfer whose accounts do not exist.
ALTER TABLE payouts
  DROP CONSTRAINT payouts_source_member_id_fkey,
  DROP CONSTRAINT payouts_destination_member_id_fkey,
  DROP CONSTRAINT payouts_payout_provider_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_member_id_fkey;
ALTER TABLE ledger_transfers
  DROP CONSTRAINT ledger_transfers_debit_account_id_fkey,
  DROP CONSTRAINT ledger_transfers_credit_account_id_fkey;

CREATE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are never deleted', TG_TABLE_NAME;
END;
$$;

CREATE TRIGGER members_never_deleted BEFORE DELETE OR TRUNCATE ON members
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_delete();
CREATE TRIGGER payout_providers_never_deleted BEFORE DELETE OR TRUNCATE ON payout_providers
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_delete();
CREATE TRIGGER ledger_accounts_never_deleted BEFORE DELETE OR TRUNCATE ON ledger_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_delete();
