// POST /v2/payouts/{id}/process. The first caller records the submission and sends the payout to
// its partner within the request; concurrent callers wait briefly for that answer; PNDG and PRCD
// answer their current state; other states are 409.
import { PROCESS_ANSWERS } from './lifecycle.ts';
import * as repo from './repo.ts';
import { createBatcher } from '../platform/batcher.ts';
import { createAnswerApplier, forRail, submitAndApply, type SubmissionDeps } from './submission.ts';
import { processView } from './views.ts';
import { ok, refuse, type Result } from '../platform/result.ts';

export type ProcessResult = Result<ReturnType<typeof processView>, 'NOT_FOUND' | 'INVALID_STATE' | 'NO_RAIL'>;

const WAIT_FOR_OTHER_SUBMISSION_MS = 5000;
const WAIT_STEP_MS = 25;

export type ProcessDeps = SubmissionDeps;

function notProcessable(row: repo.PayoutRow, now: Date): ProcessResult {
  const detail = row.cancellationStatus === 'PNDG'
    ? 'payoutCancellationStatus: PNDG (a cancellation is pending)'
    : row.payoutStatus === 'ACCP' && row.expiryTime <= now
      ? `expiryTime: ${row.expiryTime.toISOString()} has passed`
      : `payoutStatus: ${row.payoutStatus}`;
  return refuse('INVALID_STATE', detail);
}

export function createPayoutProcessor(deps: ProcessDeps) {
  const applyAnswer = createAnswerApplier(deps);
  // claims are group-committed too: each is a durable record written before the partner call
  const claims = createBatcher<{ payoutId: string; memberId: string }, repo.PayoutRow | undefined>({
    run: (items) => repo.claimSubmissions(deps.db, items, deps.clock.now()),
    batchSizeMax: 100,
    concurrencyMax: 1,
  });
  const claim = (memberId: string, payoutId: string) => claims.submit({ payoutId, memberId });

  /** Another request is submitting this payout: wait (bounded) for its answer. */
  async function awaitOther(memberId: string, payoutId: string): Promise<repo.PayoutRow | undefined> {
    const deadline = Date.now() + WAIT_FOR_OTHER_SUBMISSION_MS;
    let row = await repo.findPayout(deps.db, memberId, payoutId);
    while (row && row.payoutStatus === 'ACCP' && row.submissionState === 'SUBMITTING' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
      row = await repo.findPayout(deps.db, memberId, payoutId);
    }
    return row;
  }

  return {
    async process(memberId: string, payoutId: string): Promise<ProcessResult> {
      // The common case first: an ACCP payout is claimed straight away.
      const claimed = await claim(memberId, payoutId);
      if (claimed && !deps.rails.railFor(forRail(claimed))) {
        await repo.releaseClaim(deps.db, payoutId);
        return refuse('NO_RAIL', `payoutProviderId: ${claimed.payoutProviderId} has no connected partner`);
      }
      if (claimed) return ok(processView(await submitAndApply(deps, claimed, applyAnswer)));
      const current = await repo.findPayout(deps.db, memberId, payoutId);
      if (!current) return refuse('NOT_FOUND', `payoutId: ${payoutId}`);
      if (PROCESS_ANSWERS.includes(current.payoutStatus)) return ok(processView(current));
      const now = deps.clock.now();
      if (current.payoutStatus !== 'ACCP' || current.cancellationStatus !== null || current.expiryTime <= now) return notProcessable(current, now);
      const after = await awaitOther(memberId, payoutId);
      if (!after) return refuse('NOT_FOUND', `payoutId: ${payoutId}`);
      if (after.payoutStatus === 'ACCP' && after.submissionState === 'NONE') return notProcessable(after, deps.clock.now());
      return ok(processView(after));
    },
  };
}
