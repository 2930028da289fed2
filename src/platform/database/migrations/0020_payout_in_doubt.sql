-- The sandbox partners remember an id cancelled before it arrived (no outcome), so that a later
-- submission of it is refused, as the partner protocol requires of every partner.
ALTER TABLE sandbox_rail_submissions ALTER COLUMN outcome DROP NOT NULL;

-- IN_DOUBT: a partner call came back without a clear answer (a timeout, a dropped connection, a
-- 5xx), or a recorded submission was never answered (the process died): the partner may or may
-- not have the payout. Nothing is resent, cancelled or released until the partner has been asked
-- by the payout id (the payout.resolve_doubt job), and the reservation stays held meanwhile.
ALTER TABLE payouts DROP CONSTRAINT payouts_submission_state_check;
ALTER TABLE payouts ADD CONSTRAINT payouts_submission_state_check
  CHECK (submission_state IN ('NONE', 'SUBMITTING', 'SUBMITTED', 'IN_DOUBT'));
CREATE INDEX payouts_in_doubt_idx ON payouts (initiate_time) WHERE submission_state = 'IN_DOUBT';

-- Payouts parked for an operator: the partner could not be asked (its outcome stays unknown), a
-- cancellation could not be settled, or an answer or report contradicts what the payout became.
-- At most one open review per payout; a resolution says what the operator established.
CREATE TABLE payout_reviews (
  review_id    uuid PRIMARY KEY,
  payout_id    uuid NOT NULL REFERENCES payouts (payout_id),
  reason       text NOT NULL CHECK (reason IN ('STATUS_UNKNOWN', 'CANCEL_UNKNOWN', 'CONTRADICTION')),
  detail       text NOT NULL,
  evidence     jsonb NOT NULL DEFAULT '[]',
  opened_at    timestamptz NOT NULL,
  resolved_at  timestamptz,
  resolution   text CHECK (resolution IN ('PAID', 'NOT_PAID', 'RETRY', 'ACKNOWLEDGED')),
  resolved_by  text,
  note         text,
  CHECK ((resolved_at IS NULL) = (resolution IS NULL))
);
CREATE UNIQUE INDEX payout_reviews_open_idx ON payout_reviews (payout_id) WHERE resolved_at IS NULL;
CREATE INDEX payout_reviews_opened_idx ON payout_reviews (opened_at DESC);
