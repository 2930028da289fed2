-- Prefund moved by operators (admin CLI prefund credit/debit): one row per operator reference,
-- written in the transaction of its ledger transfer. The primary key makes a reference usable
-- once: the same command run again finds its row and moves nothing. The row is written before its
-- transfer (it is the gate), so the reference to the transfer is checked at commit.
CREATE TABLE operator_prefund_movements (
  operator_reference     text PRIMARY KEY CHECK (operator_reference ~ '^[A-Za-z0-9._:-]{1,100}$'),
  direction              text NOT NULL CHECK (direction IN ('CREDIT', 'DEBIT')),
  source_member_id       text NOT NULL REFERENCES members (member_id),
  destination_member_id  text NOT NULL REFERENCES members (member_id),
  currency               text NOT NULL,
  amount                 numeric NOT NULL CHECK (amount > 0),
  reason                 text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
  actor                  text NOT NULL CHECK (length(actor) BETWEEN 1 AND 200),
  transfer_id            uuid NOT NULL REFERENCES ledger_transfers (transfer_id) DEFERRABLE INITIALLY DEFERRED,
  created_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX operator_prefund_movements_pair_idx ON operator_prefund_movements (source_member_id, destination_member_id, created_at);
