// Test support: the settlement area's calls for one caller (a rate lock, a creation, a whole
// "lock a rate, then settle with it").
import assert from 'node:assert/strict';
import { bearer, json } from './http.ts';

export type Json = Record<string, unknown>;
export type RateRecord = { rateId: string; rate: number; expiryTime: string; forecastRates: Array<{ executionInterval: string; rate: number }> } & Json;

export function settlementApi(baseUrl: string, accessToken: string) {
  const lockRate = async (destination = 'PARTNER_MX') =>
    json<RateRecord>(await fetch(`${baseUrl}/v2/settlement-rates?destinationMemberId=${destination}`, { headers: bearer(accessToken) }));
  const create = (body: Json, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}/v2/settlements`, {
      method: 'POST', headers: { ...bearer(accessToken), 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
    });
  return {
    lockRate,
    create,
    /** Locks a rate for the destination and settles with it (1000, IMMEDIATE unless the fields say otherwise); 201 expected. */
    async settle(destination = 'PARTNER_MX', fields: Json = {}): Promise<Json> {
      const rate = await lockRate(destination);
      const response = await create({ destinationMemberId: destination, settlementAmt: 1000, rateId: rate.rateId, executionInterval: 'IMMEDIATE', ...fields });
      assert.equal(response.status, 201);
      return json(response);
    },
  };
}

/** Advances a sandbox settlement (POST /v2/sandbox/settlements/{id}/advance) until it has `status`. */
export const advanceTo = (baseUrl: string, accessToken: string, settlementId: string, status: string, timeoutMs = 5000): Promise<Json> =>
  settlementControls(baseUrl, accessToken).advanceTo(settlementId, status, timeoutMs);

/** settlementAmt * rate, half-up to two decimals, from their decimal texts (exact integers). */
export function creditOf(settlementAmt: string, rate: string): string {
  const scaled = (text: string, scale: number) => BigInt(text.split('.')[0]! + (text.split('.')[1] ?? '').padEnd(scale, '0'));
  const product = scaled(settlementAmt, 2) * scaled(rate, 6); // 10^-8
  const cents = (product + 500_000n) / 1_000_000n;
  return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The sandbox `advance` control for one caller: one step, or steps until a status. */
export function settlementControls(baseUrl: string, accessToken: string) {
  const advance = async (id: string, body?: Json): Promise<Json> => {
    const response = await fetch(`${baseUrl}/v2/sandbox/settlements/${id}/advance`, {
      method: 'POST', headers: { ...bearer(accessToken), ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}),
    });
    assert.equal(response.status, 200);
    return json(response);
  };
  /** Advances until the status changes (steps that wait for the chain or the bank may need a few). */
  async function advanceTo(id: string, status: string, timeoutMs = 5000): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await advance(id);
      if (record['settlementStatus'] === status) return record;
      assert.ok(Date.now() < deadline, `${id} did not reach ${status}; it is ${String(record['settlementStatus'])}`);
      await sleep(100);
    }
  }
  return { advance, advanceTo };
}

interface Queries { query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }> }

/** A settlement's ledger transfers, in the order they were made. */
export async function settlementTransfers(db: Queries, id: string) {
  const { rows } = await db.query(
    `SELECT t.reason, t.amount::text AS amount, t.currency, d.kind AS debit, c.kind AS credit FROM ledger_transfers t
       JOIN ledger_accounts d ON d.account_id = t.debit_account_id JOIN ledger_accounts c ON c.account_id = t.credit_account_id
      WHERE t.reference = $1 ORDER BY t.created_at, t.reason`, [id]);
  return rows as Array<{ reason: string; amount: string; currency: string; debit: string; credit: string }>;
}

/** The settlement's one queued job (graphile-worker), if any: its task and payload. */
export async function queuedJob(db: Queries, id: string): Promise<{ task: string; payload: Json } | undefined> {
  const { rows } = await db.query(`SELECT t.identifier AS task, j.payload FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE j.key = $1`, [`settlement:${id}`]);
  return rows[0] as { task: string; payload: Json } | undefined;
}

/** The settlement's status, failure reason and open review (step and reason), straight from the database. */
export async function settlementState(db: Queries, id: string) {
  const { rows } = await db.query(
    `SELECT s.settlement_status AS status, s.failure_reason AS "failureReason", r.step, r.reason
       FROM settlements s LEFT JOIN settlement_reviews r ON r.settlement_id = s.settlement_id AND r.resolved_at IS NULL
      WHERE s.settlement_id = $1`, [id]);
  return rows[0] as { status: string; failureReason: string | null; step: string | null; reason: string | null };
}
