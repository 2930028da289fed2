// What the ledger check requires of a settlement's transfers in each status (ledger/check.ts
// settlementDifference): the stablecoin's way leg by leg, a completed settlement with all its legs,
// a failed one with its funds returned and its undelivered stablecoin unwound.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { settlementDifference } from '../../src/ledger/check.ts';
import type { SettlementLegs } from '../../src/ledger/check-repo.ts';

const NONE = { ins: 0, buys: 0, sents: 0, delivereds: 0, outs: 0, refunds: 0, unwinds: 0, others: 0 };
const legs = (settlementStatus: string, counts: Partial<typeof NONE>, received = true): SettlementLegs =>
  ({ settlementId: 'a', settlementStatus, received, ...NONE, ...counts });
const BOUGHT = { ins: 1, buys: 1 };
const DELIVERED = { ...BOUGHT, sents: 1, delivereds: 1 };

describe('settlement legs by status', () => {
  test('fitting shapes pass', () => {
    for (const l of [
      legs('S100_SCHEDULED', {}), legs('S200_RECEIVED', {}),
      legs('S300_IN_PROGRESS', BOUGHT), legs('S300_IN_PROGRESS', { ...BOUGHT, sents: 1 }), legs('S300_IN_PROGRESS', DELIVERED),
      legs('S400_FIAT_WITHDRAWAL_IN_PROGRESS', DELIVERED),
      legs('S600_COMPLETED', { ...DELIVERED, outs: 1 }), legs('S600_COMPLETED', DELIVERED, false),
      legs('S700_FAILED', {}), legs('S700_FAILED', { ...BOUGHT, refunds: 1, unwinds: 1 }),
      legs('S700_FAILED', { ...BOUGHT, sents: 1, refunds: 1, unwinds: 1 }), legs('S700_FAILED', { ...DELIVERED, refunds: 1 }),
    ]) assert.equal(settlementDifference(l), undefined, JSON.stringify(l));
  });

  test('a completed settlement missing a leg, a refund while the money is out, an unwound delivered stablecoin: each found', () => {
    for (const l of [
      legs('S600_COMPLETED', { ins: 1, outs: 1 }), // recorded without the stablecoin's legs
      legs('S600_COMPLETED', { ...BOUGHT, sents: 1, outs: 1 }), // never delivered
      legs('S400_FIAT_WITHDRAWAL_IN_PROGRESS', { ...BOUGHT, sents: 1 }),
      legs('S300_IN_PROGRESS', { ...BOUGHT, refunds: 1 }),
      legs('S300_IN_PROGRESS', { ins: 1 }),
      legs('S700_FAILED', { ...BOUGHT, refunds: 1 }), // the stablecoin left in the treasury
      legs('S700_FAILED', { ...DELIVERED, refunds: 1, unwinds: 1 }),
      legs('S700_FAILED', { ...BOUGHT, unwinds: 1 }), // not returned
      legs('S200_RECEIVED', { others: 1 }),
    ]) assert.match(String(settlementDifference(l)), new RegExp(`^status ${l.settlementStatus} but`), JSON.stringify(l));
  });
});
