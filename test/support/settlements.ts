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
export async function advanceTo(baseUrl: string, accessToken: string, settlementId: string, status: string, timeoutMs = 5000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${baseUrl}/v2/sandbox/settlements/${settlementId}/advance`, { method: 'POST', headers: bearer(accessToken) });
    assert.equal(response.status, 200);
    const record = await json(response);
    if (record['settlementStatus'] === status) return record;
    assert.ok(Date.now() < deadline, `${settlementId} did not reach ${status}; it is ${String(record['settlementStatus'])}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** settlementAmt * rate, half-up to two decimals, from their decimal texts (exact integers). */
export function creditOf(settlementAmt: string, rate: string): string {
  const scaled = (text: string, scale: number) => BigInt(text.split('.')[0]! + (text.split('.')[1] ?? '').padEnd(scale, '0'));
  const product = scaled(settlementAmt, 2) * scaled(rate, 6); // 10^-8
  const cents = (product + 500_000n) / 1_000_000n;
  return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
}
