-- Two lookups that ran on indexes that did not fit them:
-- - Posting and voiding find a payout's or a settlement's PENDING transfers by reference. With only
--   the reference index, the planner (its statistics trailing a fast-growing table) also ANDed in
--   the pending-credit index, which holds every pending reservation of the one clearing account:
--   under `npm run bench` a post of a dozen payouts read tens of thousands of index entries and was
--   the largest single cost in PostgreSQL. An index of pending transfers by reference answers
--   exactly that question; the full reference index stays for lookups of any state.
-- - The submission recovery sweep looks for payouts SUBMITTING since before a time, and for the
--   oldest of them; without an index each run read the whole payouts table.
CREATE INDEX ledger_transfers_pending_reference_idx ON ledger_transfers (reference) WHERE state = 'PENDING';
CREATE INDEX payouts_unfinished_submission_idx ON payouts (initiate_time) WHERE submission_state = 'SUBMITTING';
