// Test support: valid payout creation requests per provider, and small API helpers.
import { randomUUID } from 'node:crypto';
import { bearer, json } from './http.ts';

const beneficiaryFor: Record<string, Record<string, unknown>> = {
  MX_SPEI: { firstName: 'Maria', lastName: 'Lopez', accountNumber: '032180000118359719' },
  MX_CASH: { firstName: 'Maria', lastName: 'Lopez', idType: 'INE', idNumber: 'LOGM850101MDF', phone: '+525512345678' },
  BR_PIX: { firstName: 'Ana', lastName: 'Souza', pixType: 'CPF', pixKey: '52998224725', taxId: '52998224725' },
  PH_GCASH: { firstName: 'Jose', lastName: 'Reyes', phone: '+639171234567' },
  KE_MPESA: { firstName: 'Wanjiru', lastName: 'Kamau', phone: '+254712345678' },
  NG_NIP: { firstName: 'Chinedu', lastName: 'Okafor', branchNumber: '058', accountNumber: '0123456785' },
  IN_IMPS: { firstName: 'Priya', lastName: 'Sharma', branchNumber: 'SBIN0001234', accountNumber: '123456789012' },
};
const currencyFor: Record<string, string> = { MX_SPEI: 'MXN', MX_CASH: 'MXN', BR_PIX: 'BRL', PH_GCASH: 'PHP', KE_MPESA: 'KES', NG_NIP: 'NGN', IN_IMPS: 'INR' };

export function payoutBody(provider = 'MX_SPEI', overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sourceMemberPayoutId: `t-${randomUUID()}`,
    payoutProviderId: provider,
    destinationCcy: currencyFor[provider] ?? 'MXN',
    payoutAmt: 1000,
    sender: { firstName: 'John', lastName: 'Smith', countryCode: 'US', dateOfBirth: '1980-05-17' },
    beneficiary: { ...(beneficiaryFor[provider] ?? beneficiaryFor['MX_SPEI']) },
    ...overrides,
  };
}

export function payoutApi(baseUrl: string, accessToken: string) {
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...bearer(accessToken), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    call,
    create: (body: unknown) => call('POST', '/v2/payouts', body),
    async created(body: unknown): Promise<Record<string, unknown>> {
      const response = await call('POST', '/v2/payouts', body);
      if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
      return json(response);
    },
    process: (id: string) => call('POST', `/v2/payouts/${id}/process`),
    cancel: (id: string, reason = 'Customer request') => call('POST', `/v2/payouts/${id}/cancel`, { cancellationReason: reason }),
    simulate: (id: string, body: unknown) => call('POST', `/v2/sandbox/payouts/${id}/simulate`, body),
    get: (id: string) => call('GET', `/v2/payouts/${id}`),
    status: (id: string) => call('GET', `/v2/payouts/${id}/status`),
    async record(id: string): Promise<Record<string, unknown>> {
      return json(await call('GET', `/v2/payouts/${id}`));
    },
  };
}

/** Polls until check() holds (bounded), for background jobs. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    value = await read();
  }
  return value;
}
