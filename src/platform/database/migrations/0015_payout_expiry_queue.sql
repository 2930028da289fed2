-- Payouts waiting for `process` expire through one sweep (the task payout.expire_due) instead of a
-- graphile-worker job per creation batch: adding that job was about a tenth of PostgreSQL's work
-- per payout under `npm run bench`, and its NOTIFY woke every worker for nothing.
--
-- Each created payout leaves a row here, written by the statement that inserts it: when to look at
-- it. The sweep takes the rows that are due (in expiry order, deleting them) and expires those of
-- their payouts still waiting; a payout processed or cancelled meanwhile is simply passed over.
-- A queue of its own rather than an index on payouts: a partial index of waiting payouts fills with
-- entries of payouts processed since (dead until vacuum), and the planner, counting it nearly
-- empty, chose it for the submission claim, which then read every one of those entries.
CREATE TABLE payout_expiry_queue (
  payout_id   uuid NOT NULL,
  expiry_time timestamptz NOT NULL
);
CREATE INDEX payout_expiry_queue_time_idx ON payout_expiry_queue (expiry_time);

-- payouts waiting when this version starts (their payout.expire jobs stay too: both are harmless twice)
INSERT INTO payout_expiry_queue (payout_id, expiry_time)
  SELECT payout_id, expiry_time FROM payouts WHERE payout_status = 'ACCP' AND submission_state = 'NONE';
