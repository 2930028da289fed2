// Sends the reports the books owe to the service's intake (POST /partner-api/v1/reports), signed
// with the partner's key, until the service answers. A refusal that will not change (400, 401,
// 404, 422) or REPORT_ATTEMPTS_MAX failed attempts give up on a report; the books keep it.
import { signRequest, type SigningKey } from '../src/partners/signatures.ts';
import type { ReportRow, Store } from './store.ts';

export const REPORT_ATTEMPTS_MAX = 6;
export const REPORT_TIMEOUT_MS = 5000;
const RETRY_BASE_MS = 200;
const RETRY_MAX_MS = 5000;
const POLL_MS = 50;
const BATCH_MAX = 20;

function bodyOf(report: ReportRow): string {
  return JSON.stringify({
    reportId: report.reportId,
    payoutId: report.payoutId,
    status: report.status,
    sequence: report.sequence,
    occurredAt: report.occurredAt,
    ...(report.rejectReason !== null ? { rejectReason: report.rejectReason } : {}),
    ...(report.cashoutStatus !== null ? { cashoutStatus: report.cashoutStatus } : {}),
  });
}

export function startReporter(deps: { store: Store; serviceUrl: string; key: SigningKey; log: (entry: object) => void }) {
  const url = `${deps.serviceUrl}/partner-api/v1/reports`;

  async function send(report: ReportRow): Promise<void> {
    const body = bodyOf(report);
    const headers = await signRequest({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body }, deps.key);
    // the control endpoint's "bad signature": the signature no longer matches what it covers
    if (report.badSignature) headers['signature'] = headers['signature']!.replace(/:(.)/, (_m, c: string) => `:${c === 'A' ? 'B' : 'A'}`);
    const copies = report.duplicate ? 2 : 1;
    let status = 0;
    for (let copy = 0; copy < copies; copy++) {
      const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(REPORT_TIMEOUT_MS) });
      status = response.status;
      await response.arrayBuffer();
    }
    if (status === 200) {
      deps.store.markSent(report.reportId);
      deps.log({ msg: 'report sent', reportId: report.reportId, status: report.status, copies });
      return;
    }
    const final = [400, 401, 404, 422].includes(status) || report.attempts + 1 >= REPORT_ATTEMPTS_MAX;
    const retryAtMs = final ? undefined : Date.now() + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** report.attempts);
    deps.store.markFailed(report.reportId, `service answered ${status}`, retryAtMs);
    deps.log({ msg: final ? 'report given up' : 'report refused, will retry', reportId: report.reportId, httpStatus: status });
  }

  let stopped = false;
  let busy: Promise<void> | undefined;
  const tick = async () => {
    for (const report of deps.store.takeDue(Date.now(), BATCH_MAX)) {
      try {
        await send(report);
      } catch (error) {
        const final = report.attempts + 1 >= REPORT_ATTEMPTS_MAX;
        deps.store.markFailed(report.reportId, (error as Error).message, final ? undefined : Date.now() + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** report.attempts));
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
