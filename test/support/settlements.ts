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
