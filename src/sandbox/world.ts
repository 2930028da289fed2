// The sandbox world of CONTRACT section 8, as data. Later areas (providers, prefund, rates) add
// their own tables beside these.
import type { Corridor, Member } from '../members/repo.ts';
import type { Scope } from '../auth/scopes.ts';

export const DEMO_SOURCE_MEMBERS: Member[] = [
  { memberId: 'DEMO_SOURCE_1', name: 'Demo Source One', kind: 'SOURCE', countryCode: 'US', currencies: ['USD'] },
  { memberId: 'DEMO_SOURCE_2', name: 'Demo Source Two', kind: 'SOURCE', countryCode: 'US', currencies: ['USD'] },
];

export const DESTINATION_MEMBERS: Member[] = [
  { memberId: 'PARTNER_MX', name: 'Pagos Rápidos México', kind: 'DESTINATION', countryCode: 'MX', currencies: ['MXN'] },
  { memberId: 'PARTNER_BR', name: 'Pix Pagamentos Brasil', kind: 'DESTINATION', countryCode: 'BR', currencies: ['BRL'] },
  { memberId: 'PARTNER_PH', name: 'Padala Wallet Philippines', kind: 'DESTINATION', countryCode: 'PH', currencies: ['PHP'] },
  { memberId: 'PARTNER_IN', name: 'Bharat Remit Payments', kind: 'DESTINATION', countryCode: 'IN', currencies: ['INR'] },
  { memberId: 'PARTNER_NG', name: 'Naira Payouts Nigeria', kind: 'DESTINATION', countryCode: 'NG', currencies: ['NGN'] },
  { memberId: 'PARTNER_KE', name: 'Pesa Wallet Kenya', kind: 'DESTINATION', countryCode: 'KE', currencies: ['KES'] },
  { memberId: 'PARTNER_GH', name: 'Cedi Payouts Ghana', kind: 'DESTINATION', countryCode: 'GH', currencies: ['GHS'] },
];

/** Largest single settlement per destination, in USD; Ghana's corridor is suspended. */
const CORRIDOR_TERMS: Record<string, { maxSettlementAmt: string; active: boolean }> = {
  PARTNER_MX: { maxSettlementAmt: '500000.00', active: true },
  PARTNER_BR: { maxSettlementAmt: '250000.00', active: true },
  PARTNER_PH: { maxSettlementAmt: '200000.00', active: true },
  PARTNER_IN: { maxSettlementAmt: '300000.00', active: true },
  PARTNER_NG: { maxSettlementAmt: '100000.00', active: true },
  PARTNER_KE: { maxSettlementAmt: '100000.00', active: true },
  PARTNER_GH: { maxSettlementAmt: '50000.00', active: false },
};

export const CORRIDORS: Corridor[] = DEMO_SOURCE_MEMBERS.flatMap((source) =>
  DESTINATION_MEMBERS.map((destination) => ({
    sourceMemberId: source.memberId,
    destinationMemberId: destination.memberId,
    destinationCcy: destination.currencies[0]!,
    ...CORRIDOR_TERMS[destination.memberId]!,
  })),
);

/**
 * The spread of every sandbox corridor, in basis points: the seed leaves it at the column's
 * default (migration 0008); mock mode, which has no database, reads it here.
 */
export const SANDBOX_RATE_SPREAD_BPS = 50;

/** Prefund each demo source member holds at every destination member, in each of its currencies. */
export const DEMO_PREFUND_AMOUNT = '5000000.00';

export interface DemoClient {
  clientId: string;
  memberId: string;
  defaultSecret: string;
  scopes: Scope[];
}

export const DEMO_CLIENTS: [DemoClient, DemoClient] = [
  { clientId: 'demo-source-1', memberId: 'DEMO_SOURCE_1', defaultSecret: 'demo-secret-1', scopes: ['payouts', 'settlements', 'member'] },
  { clientId: 'demo-source-2', memberId: 'DEMO_SOURCE_2', defaultSecret: 'demo-secret-2', scopes: ['payouts', 'settlements', 'member'] },
];

/** The wallet every sandbox destination member receives settlements' stablecoin at (EIP-55 checksummed). */
export const SANDBOX_WALLET_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
