// The destination side of a production settlement through the partner protocol (docs/partner-guide.md
// section 3.5). The destination member is a banking partner: it receives the stablecoin on chain,
// converts it itself and credits the local currency to the source member's prefund account with
// it, then confirms that credit with a signed call (partners/settlement-intake.ts).
//
// - The destination exchange makes no call: the partner converts at the settlement's locked rate,
//   so the proceeds are computed exactly as the sandbox computes them; `findSwap` reads the swap
//   the pipeline recorded.
// - The bank's `deposit` records the notice (the intent) and sends it to the partner, idempotent by
//   reference; `status` is CONFIRMED only once the partner's signed confirmation is recorded with
//   the agreed amount; `findDeposit` asks the partner by reference and throws on an unclear answer.
//
// References are the pipeline's: they begin with the settlement id (`{settlementId}:{STEP}`).
// Wiring (after merging): pass `createPartnerSettlementVenues({ db, signingKey: serviceKey,
// asset: venues.asset, dispatcher: createRailAgent() })` into the production Venues.
import type { Dispatcher } from 'undici';
import { Value } from 'typebox/value';
import type { Db } from '../platform/database/pool.ts';
import { convert, formatMinor, parseAmount } from '../platform/money.ts';
import { creditsAgree } from '../partners/settlement-intake.ts';
import { PartnerSettlementNotFound, PartnerSettlementReceipt, type PartnerSettlementNotice } from '../partners/settlement-protocol.ts';
import { createSignedCall, unclearAnswer, type PartnerAnswer } from '../partners/signed-call.ts';
import type { SigningKey } from '../partners/signatures.ts';
import * as confirmations from './confirmations-repo.ts';
import { settlementIdOf } from './references.ts';
import * as repo from './repo.ts';
import { VenueRefusal, type Bank, type BankLookup, type DestinationExchange, type DestinationExchangeLookup, type VenueLookup } from './venues.ts';

/** Bounds one call to a partner, its retries included. */
export const PARTNER_CALL_TIMEOUT_MS = 10_000;

export interface PartnerSettlementVenuesOptions {
  /** The service's database (settlements, their steps, notices and confirmations, partner connections). */
  db: Db;
  /** The service's signing key (partners/service-key.ts resolveServiceSigningKey). */
  signingKey: SigningKey;
  /** The stablecoin the chain carries (Venues.asset), named in every notice. */
  asset: string;
  /** The connection pool for partner calls (payouts/rails/http.ts createRailAgent). */
  dispatcher: Dispatcher;
  /** Default PARTNER_CALL_TIMEOUT_MS. */
  callTimeoutMs?: number;
  /** Attempts per call on no answer, a 5xx or a 429 (default signed-call.ts CALL_ATTEMPTS_MAX). */
  attemptsMax?: number;
}

export interface PartnerSettlementVenues {
  destinationExchange: DestinationExchange & DestinationExchangeLookup;
  bank: Bank & BankLookup;
}

/** A deposit id names the partner and its notice id: partners' ids need not be unique across partners. */
const depositIdOf = (memberId: string, partnerNoticeId: string) => `${memberId}/${partnerNoticeId}`;
function partsOf(depositId: string): { memberId: string; partnerNoticeId: string } {
  const slash = depositId.indexOf('/');
  if (slash < 1) throw new Error(`deposit id ${depositId} is not one of these venues`);
  return { memberId: depositId.slice(0, slash), partnerNoticeId: depositId.slice(slash + 1) };
}

/** What the destination member is to credit: settlementAmt * locked rate, half-up to the currency. */
export function agreedCredit(row: repo.SettlementRow): string {
  const amount = parseAmount(row.settlementAmt, row.sourceCcy);
  if (!amount.ok) throw new Error(`settlement ${row.settlementId}: amount ${row.settlementAmt} ${row.sourceCcy} (${amount.error})`);
  return formatMinor(convert(amount.minor, row.sourceCcy, row.rate, row.destinationCcy), row.destinationCcy);
}

export function createPartnerSettlementVenues(options: PartnerSettlementVenuesOptions): PartnerSettlementVenues {
  const { db } = options;

  async function settlementOf(reference: string): Promise<repo.SettlementRow> {
    const row = await repo.readSettlement(db, settlementIdOf(reference));
    if (!row) throw new Error(`no settlement for reference ${reference}`);
    return row;
  }

  /** A signed call to the destination member's enabled connection. */
  async function callPartner(memberId: string, method: 'GET' | 'POST', path: string, body: string | undefined): Promise<PartnerAnswer> {
    const baseUrl = await confirmations.partnerBaseUrl(db, memberId);
    if (baseUrl === undefined) throw new Error(`destination member ${memberId} has no enabled partner connection`);
    const call = createSignedCall({ baseUrl, signingKey: options.signingKey, dispatcher: options.dispatcher, ...(options.attemptsMax ? { attemptsMax: options.attemptsMax } : {}) });
    return call(method, path, body, AbortSignal.timeout(options.callTimeoutMs ?? PARTNER_CALL_TIMEOUT_MS));
  }

  /** The partner's receipt of a notice, kept with our record of it; throws on any other answer. */
  async function keepReceipt(memberId: string, reference: string, answer: PartnerAnswer, what: string): Promise<{ depositId: string }> {
    if (answer.statusCode !== 200 || !Value.Check(PartnerSettlementReceipt, answer.body)) throw unclearAnswer(what, answer);
    const receipt = answer.body as PartnerSettlementReceipt;
    if (receipt.reference !== reference) throw unclearAnswer(`${what} (another reference)`, answer);
    if (!(await confirmations.recordPartnerNoticeId(db, reference, receipt.partnerNoticeId))) {
      throw unclearAnswer(`${what} (a notice never recorded, or another partnerNoticeId than the first answer)`, answer);
    }
    return { depositId: depositIdOf(memberId, receipt.partnerNoticeId) };
  }

  async function noticeOf(order: Parameters<Bank['deposit']>[0]): Promise<PartnerSettlementNotice> {
    const row = await settlementOf(order.reference);
    if (row.destinationMemberId !== order.destinationMemberId) throw new VenueRefusal(`settlement ${row.settlementId} goes to ${row.destinationMemberId}, not ${order.destinationMemberId}`);
    const creditAmount = agreedCredit(row);
    if (!creditsAgree({ amount: creditAmount, currency: row.destinationCcy }, { amount: order.amount, currency: order.currency })) {
      throw new VenueRefusal(`deposit of ${order.amount} ${order.currency}: the settlement agreed ${creditAmount} ${row.destinationCcy}`);
    }
    const steps = await repo.readSteps(db, row.settlementId);
    const bought = steps.get('BUY');
    const transfer = steps.get('TRANSFER_CONFIRMED') ?? steps.get('TRANSFER');
    if (!bought || !transfer) throw new Error(`settlement ${row.settlementId}: no stablecoin bought and sent before its deposit`);
    return {
      reference: order.reference, settlementId: row.settlementId, sourceMemberId: row.sourceMemberId, asset: options.asset,
      assetAmount: String(bought['assetAmount']), destinationCcy: row.destinationCcy, creditAmount, rate: row.rate,
      ...(transfer['txHash'] !== undefined ? { txHash: String(transfer['txHash']) } : {}),
    };
  }

  const bank: Bank & BankLookup = {
    async deposit(order) {
      const notice = await noticeOf(order);
      const recorded = await confirmations.recordNotice(db, {
        reference: notice.reference, settlementId: notice.settlementId, destinationMemberId: order.destinationMemberId,
        currency: notice.destinationCcy, creditAmount: notice.creditAmount,
      });
      if (!creditsAgree({ amount: recorded.creditAmount, currency: recorded.currency }, { amount: notice.creditAmount, currency: notice.destinationCcy })) {
        throw new Error(`notice ${notice.reference}: recorded for ${recorded.creditAmount} ${recorded.currency}, now ${notice.creditAmount} ${notice.destinationCcy}`);
      }
      const answer = await callPartner(order.destinationMemberId, 'POST', '/v1/settlements', JSON.stringify(notice));
      return keepReceipt(order.destinationMemberId, order.reference, answer, 'settlement notice');
    },

    async status(depositId) {
      const { memberId, partnerNoticeId } = partsOf(depositId);
      const standing = await confirmations.noticeStanding(db, memberId, partnerNoticeId);
      if (!standing) throw new Error(`deposit ${depositId}: no notice recorded with this partner id`);
      const confirmed = standing.creditedAmount !== null && standing.creditedCurrency !== null
        && creditsAgree({ amount: standing.creditAmount, currency: standing.currency }, { amount: standing.creditedAmount, currency: standing.creditedCurrency });
      return confirmed ? 'CONFIRMED' : 'PENDING';
    },

    async findDeposit(reference): Promise<VenueLookup<{ depositId: string }>> {
      const row = await settlementOf(reference);
      const answer = await callPartner(row.destinationMemberId, 'GET', `/v1/settlements/${encodeURIComponent(reference)}`, undefined);
      if (answer.statusCode === 404) {
        if (Value.Check(PartnerSettlementNotFound, answer.body) && (answer.body as { reference: string }).reference === reference) return { found: false };
        throw unclearAnswer('settlement lookup', answer); // a 404 without the protocol's body may be a wrong base URL
      }
      return { found: true, result: await keepReceipt(row.destinationMemberId, reference, answer, 'settlement lookup') };
    },
  };

  const destinationExchange: DestinationExchange & DestinationExchangeLookup = {
    // the partner converts at the locked rate: the proceeds are known without asking it
    async swap(order) {
      const amount = parseAmount(order.assetAmount, 'USD');
      if (!amount.ok) throw new VenueRefusal(`swap of ${order.assetAmount} ${order.asset}: not an amount (${amount.error})`);
      return { orderId: `partner-swap:${order.reference}`, proceeds: formatMinor(convert(amount.minor, 'USD', order.rate, order.currency), order.currency) };
    },
    async findSwap(reference) {
      const swap = (await repo.readSteps(db, settlementIdOf(reference))).get('SWAP');
      return swap ? { found: true, result: { orderId: String(swap['orderId']), proceeds: String(swap['proceeds']) } } : { found: false };
    },
  };

  return { destinationExchange, bank };
}
