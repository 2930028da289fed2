export const SCOPES = ['payouts', 'settlements', 'member'] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  payouts: 'Payouts, payout providers, payout limits and the three code lists',
  settlements: 'Settlement rates, settlement context and settlements',
  member: 'Destination members, webhook endpoints and events',
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
