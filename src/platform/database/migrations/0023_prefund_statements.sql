-- Prefund statements: every movement of a prefund account, in the order the ledger recorded it,
-- paged by a cursor that no later movement can slip behind.
--
-- A transfer makes one movement when it is created and, when it is two-phase, a second when it is
-- posted or voided. Each movement takes a number from one sequence: created_seq at the insert,
-- resolved_seq at the post or void. Numbers are taken while the prefund account's row is locked
-- (FOR NO KEY UPDATE to create or void; FOR KEY SHARE to post, so that posts never queue behind
-- reservations nor each other), and a statement reader locks that row FOR UPDATE, which waits
-- for every writer in flight: what it reads is then a complete prefix, and every movement that
-- commits later has a higher number than any it has seen.
CREATE SEQUENCE ledger_movement_seq AS bigint;

ALTER TABLE ledger_transfers ADD COLUMN created_seq bigint, ADD COLUMN resolved_seq bigint;

-- Existing movements numbered in the order of their times.
ALTER TABLE ledger_transfers DISABLE TRIGGER ledger_transfers_append_only;
WITH movements AS (
  SELECT transfer_id, 0 AS phase, created_at AS at FROM ledger_transfers
  UNION ALL
  SELECT transfer_id, 1, coalesce(resolved_at, created_at) FROM ledger_transfers WHERE two_phase AND state <> 'PENDING'
), numbered AS (
  SELECT transfer_id, phase, row_number() OVER (ORDER BY at, phase, transfer_id) AS n FROM movements
)
UPDATE ledger_transfers t
   SET created_seq = c.n, resolved_seq = r.n
  FROM numbered c LEFT JOIN numbered r ON r.transfer_id = c.transfer_id AND r.phase = 1
 WHERE c.phase = 0 AND t.transfer_id = c.transfer_id;
ALTER TABLE ledger_transfers ENABLE TRIGGER ledger_transfers_append_only;
SELECT setval('ledger_movement_seq', greatest((SELECT max(greatest(created_seq, coalesce(resolved_seq, 0))) FROM ledger_transfers), 0) + 1, false);

ALTER TABLE ledger_transfers
  ALTER COLUMN created_seq SET DEFAULT nextval('ledger_movement_seq'),
  ALTER COLUMN created_seq SET NOT NULL,
  ADD CONSTRAINT ledger_transfers_resolved_seq CHECK ((resolved_seq IS NULL) = (state = 'PENDING' OR NOT two_phase));
ALTER SEQUENCE ledger_movement_seq OWNED BY ledger_transfers.created_seq;

-- created_seq never changes; resolved_seq is written with the one change a transfer may have.
CREATE OR REPLACE FUNCTION ledger_transfers_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'ledger transfers are append-only';
  END IF;
  IF OLD.state <> 'PENDING' OR NEW.state NOT IN ('POSTED', 'VOIDED')
     OR (NEW.transfer_id, NEW.debit_account_id, NEW.credit_account_id, NEW.amount, NEW.currency, NEW.two_phase, NEW.reason, NEW.reference, NEW.created_at, NEW.created_seq)
        IS DISTINCT FROM
        (OLD.transfer_id, OLD.debit_account_id, OLD.credit_account_id, OLD.amount, OLD.currency, OLD.two_phase, OLD.reason, OLD.reference, OLD.created_at, OLD.created_seq)
  THEN
    RAISE EXCEPTION 'ledger transfer % may only move from PENDING to POSTED or VOIDED', OLD.transfer_id;
  END IF;
  RETURN NEW;
END $$;

-- A statement page is a merge of these ordered scans (keyset paging: never OFFSET).
CREATE INDEX ledger_transfers_debit_movements_idx ON ledger_transfers (debit_account_id, created_seq);
CREATE INDEX ledger_transfers_credit_movements_idx ON ledger_transfers (credit_account_id, created_seq);
CREATE INDEX ledger_transfers_debit_resolutions_idx ON ledger_transfers (debit_account_id, resolved_seq) WHERE resolved_seq IS NOT NULL;
CREATE INDEX ledger_transfers_credit_resolutions_idx ON ledger_transfers (credit_account_id, resolved_seq) WHERE resolved_seq IS NOT NULL;
