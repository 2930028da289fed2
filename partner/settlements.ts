// The reference partner's settlement calls: POST /v1/settlements (a notice of an incoming
// settlement: recorded once per reference, answered with the same partnerNoticeId every time) and
// GET /v1/settlements/{reference}. A new notice owes a signed confirmation to the service after
// confirmAfterMs (default 200), for the notice's creditAmount unless the behaviour says otherwise;
// the reporter sends it.
import { Value } from 'typebox/value';
import { PartnerSettlementNotice, type PartnerSettlementReceipt } from '../src/partners/settlement-protocol.ts';
import { addDecimal } from './store.ts';
import type { NewConfirmation, NoticeRow, SettlementStore } from './settlement-store.ts';
import { before, HANG, HttpAnswer, parseJson } from './answers.ts';
import type { Behaviour } from './server.ts';

const receipt = (row: NoticeRow): PartnerSettlementReceipt => ({ reference: row.reference, partnerNoticeId: row.partnerNoticeId });

function decide(notice: PartnerSettlementNotice, behaviour: Behaviour): NewConfirmation | undefined {
  const outcome = behaviour.settlementOutcome ?? 'CONFIRM';
  if (outcome === 'NEVER_CONFIRM') return undefined;
  return {
    // CONFIRM_DIFFERENT_AMOUNT: the partner credits one unit more than agreed
    creditedAmount: outcome === 'CONFIRM_DIFFERENT_AMOUNT' ? addDecimal(notice.creditAmount, '1') : notice.creditAmount,
    dueAtMs: Date.now() + (behaviour.confirmAfterMs ?? 200),
    badSignature: behaviour.reports === 'BAD_SIGNATURE',
  };
}

export function settlementCalls(deps: { store: SettlementStore; behaviourFor: (key: string | undefined) => Behaviour }) {
  return async function answer(method: string, path: string, body: string): Promise<HttpAnswer> {
    if (method === 'POST' && path === '/v1/settlements') {
      const notice = parseJson(body);
      if (!Value.Check(PartnerSettlementNotice, notice)) {
        throw new HttpAnswer(400, { code: 'VALIDATION_ERROR', detail: [...Value.Errors(PartnerSettlementNotice, notice)][0]?.message });
      }
      const behaviour = deps.behaviourFor(notice.reference);
      const early = await before(behaviour);
      if (early) return early;
      const row = deps.store.receive(notice, () => decide(notice, behaviour));
      if (behaviour.hang === 'AFTER_RECEIVING') return HANG();
      return new HttpAnswer(200, receipt(row));
    }
    const match = /^\/v1\/settlements\/([^/]{1,300})$/.exec(path);
    if (!match) return new HttpAnswer(404, { code: 'NOT_FOUND' });
    if (method !== 'GET') return new HttpAnswer(405, { code: 'METHOD_NOT_ALLOWED' });
    const reference = decodeURIComponent(match[1]!);
    const early = await before(deps.behaviourFor(reference));
    if (early) return early;
    const row = deps.store.find(reference);
    return row ? new HttpAnswer(200, receipt(row)) : new HttpAnswer(404, { code: 'SETTLEMENT_NOT_FOUND', reference });
  };
}
