-- Account totals count every transfer that is not voided (pending or posted) on each side.
-- Posting a reservation then changes no account row: it only marks the transfer POSTED. A hot
-- prefund account is locked to reserve and to release, never to post, so payouts that complete
-- at the same time do not queue on it. Pending amounts, where a balance needs them, are summed
-- from the transfers (an indexed, bounded set).
ALTER TABLE ledger_accounts
  ADD COLUMN debits_committed numeric(30, 0) NOT NULL DEFAULT 0 CHECK (debits_committed >= 0),
  ADD COLUMN credits_committed numeric(30, 0) NOT NULL DEFAULT 0 CHECK (credits_committed >= 0);
UPDATE ledger_accounts SET debits_committed = debits_posted + debits_pending, credits_committed = credits_posted + credits_pending;
ALTER TABLE ledger_accounts
  DROP COLUMN debits_posted, DROP COLUMN credits_posted, DROP COLUMN debits_pending, DROP COLUMN credits_pending;
-- no-overdraft accounts never receive two-phase credits (asserted in code), so this is available >= 0
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_no_overdraft CHECK (NOT no_overdraft OR credits_committed - debits_committed >= 0);
CREATE INDEX ledger_transfers_pending_credit_idx ON ledger_transfers (credit_account_id) WHERE state = 'PENDING';
