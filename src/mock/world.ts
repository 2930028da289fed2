// The sandbox world as mock mode reads it: the members, corridors and providers that the sandbox
// seeds into its database (sandbox/world.ts, providers/catalogue.ts), read from the code instead,
// so that the rules of payouts, rates and settlements run unchanged with no database. A mock
// caller that is not one of the demo source members is taken for one: a source member in USD with
// the same corridors (every demo source member has the same).
import type { Directory } from '../members/directory.ts';
import type { CorridorTerms, Member } from '../members/repo.ts';
import type { PayoutRuleSources } from '../payouts/payout-terms.ts';
import { SANDBOX_PROVIDERS } from '../providers/catalogue.ts';
import { CORRIDORS, DEMO_SOURCE_MEMBERS, DESTINATION_MEMBERS, SANDBOX_RATE_SPREAD_BPS } from '../sandbox/world.ts';

const MEMBERS = new Map<string, Member>([...DEMO_SOURCE_MEMBERS, ...DESTINATION_MEMBERS].map((m) => [m.memberId, m]));
const TEMPLATE_SOURCE = DEMO_SOURCE_MEMBERS[0]!;
/** The catalogue as the database lists it: ordered by id. */
export const WORLD_PROVIDERS = [...SANDBOX_PROVIDERS].sort((a, b) => (a.payoutProviderId < b.payoutProviderId ? -1 : 1));
const PROVIDERS = new Map(WORLD_PROVIDERS.map((p) => [p.payoutProviderId, p]));

/** A world member, or (any other id) a source member like the demo ones: never a destination member. */
function memberOf(memberId: string): Member {
  return MEMBERS.get(memberId) ?? { ...TEMPLATE_SOURCE, memberId, name: memberId };
}

function corridorsOf(sourceMemberId: string, destinationMemberId: string): CorridorTerms[] {
  const source = memberOf(sourceMemberId);
  const template = source.kind === 'SOURCE' && MEMBERS.has(sourceMemberId) ? sourceMemberId : TEMPLATE_SOURCE.memberId;
  return CORRIDORS
    .filter((c) => c.sourceMemberId === template && c.destinationMemberId === destinationMemberId)
    .map((c) => ({
      sourceCcy: source.currencies[0]!,
      destinationCcy: c.destinationCcy,
      active: c.active,
      maxSettlementAmt: c.maxSettlementAmt,
      rateSpreadBps: SANDBOX_RATE_SPREAD_BPS,
    }));
}

export const worldDirectory: Directory = {
  member: async (memberId) => memberOf(memberId),
  corridors: async (sourceMemberId, destinationMemberId) => corridorsOf(sourceMemberId, destinationMemberId),
};

export const worldPayoutSources: PayoutRuleSources = {
  findProvider: async (payoutProviderId) => PROVIDERS.get(payoutProviderId),
  corridors: worldDirectory.corridors,
};
