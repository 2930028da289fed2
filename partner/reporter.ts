// Sends what the books owe the service, signed with the partner's key, until the service answers:
// payout reports (POST /partner-api/v1/reports) and settlement confirmations (POST
// /partner-api/v1/settlement-confirmations). A refusal that will not change (400, 401, 404, 409,
// 422) or REPORT_ATTEMPTS_MAX failed attempts give up on one; the books keep it.
import { signRequest, type SigningKey } from '../src/partners/signatures.ts';
import type { ReportRow, Store } from './store.ts';
import type { ConfirmationRow } from './settlement-store.ts';

export const REPORT_ATTEMPTS_MAX = 6;
export const REPORT_TIMEOUT_MS = 5000;
const RETRY_BASE_MS = 200;
const RETRY_MAX_MS = 5000;
const POLL_MS = 50;
const BATCH_MAX = 20;
const FINAL_STATUSES = [400, 401, 404, 409, 422];

/** One thing owed to the service and how the books learn its fate. */
interface Outgoing {
  id: string;
  path: string;
  body: string;
  attempts: number;
  copies: number;
  badSignature: boolean;
  markSent(): void;
  markFailed(error: string, retryAtMs: number | undefined): void;
}

function reportOf(store: Store, report: ReportRow): Outgoing {
  return {
    id: report.reportId, path: '/partner-api/v1/reports', attempts: report.attempts, copies: report.duplicate ? 2 : 1, badSignature: Boolean(report.badSignature),
    body: JSON.stringify({
      reportId: report.reportId,
      payoutId: report.payoutId,
      status: report.status,
      sequence: report.sequence,
      occurredAt: report.occurredAt,
      ...(report.rejectReason !== null ? { rejectReason: report.rejectReason } : {}),
      ...(report.cashoutStatus !== null ? { cashoutStatus: report.cashoutStatus } : {}),
    }),
    markSent: () => store.markSent(report.reportId),
    markFailed: (error, retryAtMs) => store.markFailed(report.reportId, error, retryAtMs),
  };
}

function confirmationOf(store: Store, row: ConfirmationRow): Outgoing {
  return {
    id: row.reference, path: '/partner-api/v1/settlement-confirmations', attempts: row.attempts, copies: 1, badSignature: Boolean(row.badSignature),
    body: JSON.stringify({
      reference: row.reference, creditedAmount: row.creditedAmount, currency: row.currency, creditedAt: row.creditedAt, partnerCreditId: row.partnerCreditId,
    }),
    markSent: () => store.settlements.markSent(row.reference),
    markFailed: (error, retryAtMs) => store.settlements.markFailed(row.reference, error, retryAtMs),
  };
}

const retryAt = (attempts: number) => Date.now() + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** attempts);

export function startReporter(deps: { store: Store; serviceUrl: string; key: SigningKey; log: (entry: object) => void }) {
  async function send(item: Outgoing): Promise<void> {
    const url = `${deps.serviceUrl}${item.path}`;
    const headers = await signRequest({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: item.body }, deps.key);
    // the control endpoint's "bad signature": the signature no longer matches what it covers
    if (item.badSignature) headers['signature'] = headers['signature']!.replace(/:(.)/, (_m, c: string) => `:${c === 'A' ? 'B' : 'A'}`);
    let status = 0;
    for (let copy = 0; copy < item.copies; copy++) {
      const response = await fetch(url, { method: 'POST', headers, body: item.body, signal: AbortSignal.timeout(REPORT_TIMEOUT_MS) });
      status = response.status;
      await response.arrayBuffer();
    }
    if (status === 200) {
      item.markSent();
      deps.log({ msg: 'sent', path: item.path, id: item.id, copies: item.copies });
      return;
    }
    const final = FINAL_STATUSES.includes(status) || item.attempts + 1 >= REPORT_ATTEMPTS_MAX;
    item.markFailed(`service answered ${status}`, final ? undefined : retryAt(item.attempts));
    deps.log({ msg: final ? 'given up' : 'refused, will retry', path: item.path, id: item.id, httpStatus: status });
  }

  let stopped = false;
  let busy: Promise<void> | undefined;
  const tick = async () => {
    const now = Date.now();
    const due = [
      ...deps.store.takeDue(now, BATCH_MAX).map((r) => reportOf(deps.store, r)),
      ...deps.store.settlements.takeDue(now, BATCH_MAX).map((c) => confirmationOf(deps.store, c)),
    ];
    for (const item of due) {
      try {
        await send(item);
      } catch (error) {
        const final = item.attempts + 1 >= REPORT_ATTEMPTS_MAX;
        item.markFailed((error as Error).message, final ? undefined : retryAt(item.attempts));
      }
    }
  };
  const timer = setInterval(() => {
    if (stopped || busy) return;
    busy = tick()
      .catch((error: unknown) => deps.log({ msg: 'reporter failed', err: String(error) }))
      .finally(() => (busy = undefined));
  }, POLL_MS);

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await busy;
    },
  };
}
