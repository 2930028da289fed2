// What the fault campaign checks once the load has stopped and the service has gone quiet: the
// ledger check passes, every payout and settlement is terminal or explained (in doubt, or parked
// with an open review), and no webhook event is lost (every event has a delivery the receiver got,
// or one still scheduled with the reason of its last failure).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { nodeBinary } from './chaos-fleet.ts';

const run = promisify(execFile);

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const FINAL_PAYOUTS = ['PRCD', 'RJCT', 'CNCL', 'EXPD', 'FAIL', 'RVSD'];
const FINAL_SETTLEMENTS = ['S500_TERMINATED', 'S600_COMPLETED', 'S700_FAILED'];

/** Payouts neither final nor explained: in doubt (the partner is being asked) or parked with an open review explain one. */
export async function unsettledPayouts(db: pg.Client): Promise<{ final: number; inDoubt: number; reviewed: number; unexplained: string[] }> {
  const { rows } = await db.query<{ payout_id: string; payout_status: string; submission_state: string; cancellation_status: string | null; reviewed: boolean }>(
    `SELECT p.payout_id, p.payout_status, p.submission_state, p.cancellation_status,
            EXISTS (SELECT 1 FROM payout_reviews r WHERE r.payout_id = p.payout_id AND r.resolved_at IS NULL) AS reviewed
       FROM payouts p`);
  let final = 0;
  let inDoubt = 0;
  let reviewed = 0;
  const unexplained: string[] = [];
  for (const row of rows) {
    if (FINAL_PAYOUTS.includes(row.payout_status) && row.cancellation_status !== 'PNDG') final++;
    else if (row.reviewed) reviewed++;
    else if (row.submission_state === 'IN_DOUBT') inDoubt++;
    else unexplained.push(`${row.payout_id} ${row.payout_status}/${row.submission_state}/${row.cancellation_status ?? '-'}`);
  }
  return { final, inDoubt, reviewed, unexplained };
}

export async function unsettledSettlements(db: pg.Client): Promise<{ final: number; unexplained: string[] }> {
  const { rows } = await db.query<{ settlement_id: string; settlement_status: string }>('SELECT settlement_id, settlement_status FROM settlements');
  const open = rows.filter((r) => !FINAL_SETTLEMENTS.includes(r.settlement_status));
  return { final: rows.length - open.length, unexplained: open.map((r) => `${r.settlement_id} ${r.settlement_status}`) };
}

/** Events of the endpoint's member since it was registered, against their deliveries and what the receiver got. */
export async function webhookLosses(db: pg.Client, endpointId: string, received: Set<string>): Promise<{ events: number; delivered: number; scheduled: number; lost: string[] }> {
  const { rows } = await db.query<{ event_key: string; type: string; status: string | null; attempts: number | null; last_error: string | null; next_attempt_at: Date | null }>(
    `SELECT e.event_key, e.type, d.status, d.attempts, d.last_error, d.next_attempt_at
       FROM events e
       JOIN webhook_endpoints w ON w.webhook_endpoint_id = $1 AND w.member_id = e.member_id AND e.created_at >= w.creation_time
       LEFT JOIN webhook_deliveries d ON d.event_id = e.event_id AND d.webhook_endpoint_id = w.webhook_endpoint_id
      WHERE e.type = ANY (w.event_types)`, [endpointId]);
  let delivered = 0;
  let scheduled = 0;
  const lost: string[] = [];
  for (const row of rows) {
    if (row.status === 'SUCCEEDED' && received.has(row.event_key)) delivered++;
    else if (row.status === 'PENDING' && row.next_attempt_at !== null && row.last_error !== null) scheduled++;
    else lost.push(`${row.event_key} ${row.type} delivery ${row.status ?? 'none'} (attempts ${row.attempts ?? 0}, received ${received.has(row.event_key)})`);
  }
  return { events: rows.length, delivered, scheduled, lost };
}

/** `npm run admin -- ledger check` against the campaign's database. */
export async function ledgerCheck(root: string, databaseUrl: string, dataDir: string): Promise<Check> {
  try {
    const { stdout } = await run(nodeBinary(root), [path.join(root, 'src/admin/cli.ts'), 'ledger', 'check'], {
      cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir },
    });
    return { name: 'ledger check', ok: true, detail: `exit 0: ${stdout.trim().split('\n').at(-1) ?? ''}` };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { name: 'ledger check', ok: false, detail: `exit ${failed.code}: ${(failed.stdout ?? '') + (failed.stderr ?? '')}`.slice(0, 2000) };
  }
}
