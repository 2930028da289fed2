// GET /v2/payouts: paging, every filter, every sort in both directions, validation and isolation,
// against a known data set created through the real API (times then pinned in the database).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { bearer, DEMO_2, json, token } from '../support/http.ts';

type Provider = 'MX_SPEI' | 'PH_GCASH' | 'KE_MPESA';
interface Person { firstName: string; middleName?: string; lastName: string; countryCode?: string }
interface Seed { id: string; provider: Provider; sender: Person; beneficiary: Person; created: string; process?: boolean; completed?: string }

// Creation times strictly increase with the index; L-00, L-04 and L-08 are paid (PRCD), L-05 is
// refused by the sandbox partner (lastName REJECT, RJCT); the rest stay ACCP.
const SEEDS: Seed[] = [
  { id: 'L-00', provider: 'MX_SPEI', sender: { firstName: 'John', lastName: 'Smith', countryCode: 'US' }, beneficiary: { firstName: 'Maria', lastName: 'Lopez' }, created: '2026-03-01T08:00:00.000Z', process: true, completed: '2026-03-02T23:59:59.999Z' },
  { id: 'L-01', provider: 'MX_SPEI', sender: { firstName: 'anna', lastName: 'Kowalski', countryCode: 'PL' }, beneficiary: { firstName: 'Jose', lastName: 'Garcia' }, created: '2026-03-01T23:59:59.999Z' },
  { id: 'L-02', provider: 'PH_GCASH', sender: { firstName: 'Bob', lastName: 'Marley' }, beneficiary: { firstName: 'Juan', lastName: 'dela Cruz' }, created: '2026-03-02T00:00:00.000Z' },
  { id: 'L-03', provider: 'KE_MPESA', sender: { firstName: 'carla', lastName: 'Diaz', countryCode: 'GB' }, beneficiary: { firstName: 'Wanjiru', lastName: 'Kamau' }, created: '2026-03-02T12:00:00.000Z' },
  { id: 'L-04', provider: 'MX_SPEI', sender: { firstName: 'Dmitri', lastName: 'Ivanov' }, beneficiary: { firstName: 'maria', middleName: 'Fernanda', lastName: 'Ruiz' }, created: '2026-03-03T00:00:00.000Z', process: true, completed: '2026-03-03T10:00:00.000Z' },
  { id: 'L-05', provider: 'MX_SPEI', sender: { firstName: 'eve', lastName: 'Stone', countryCode: 'CA' }, beneficiary: { firstName: 'Pedro', lastName: 'REJECT' }, created: '2026-03-04T09:00:00.000Z', process: true },
  { id: 'L-06', provider: 'PH_GCASH', sender: { firstName: 'JOHN', lastName: 'SMITH', countryCode: 'US' }, beneficiary: { firstName: 'Rosa', lastName: 'Santos' }, created: '2026-03-05T10:00:00.000Z' },
  { id: 'L-07', provider: 'KE_MPESA', sender: { firstName: 'Grace', lastName: 'Hopper', countryCode: 'US' }, beneficiary: { firstName: 'Ana', lastName: 'Van_Dijk' }, created: '2026-03-05T11:00:00.000Z' },
  { id: 'L-08', provider: 'MX_SPEI', sender: { firstName: 'Hank', lastName: 'Moody', countryCode: 'MX' }, beneficiary: { firstName: 'Luis', lastName: 'Ortega' }, created: '2026-03-06T00:00:00.000Z', process: true, completed: '2026-03-06T05:00:00.000Z' },
  { id: 'L-09', provider: 'PH_GCASH', sender: { firstName: 'ivy', lastName: 'Chen' }, beneficiary: { firstName: 'Liza', lastName: 'Soberano' }, created: '2026-03-07T00:00:00.000Z' },
  { id: 'L-10', provider: 'MX_SPEI', sender: { firstName: 'Jack', lastName: 'Ryan', countryCode: 'US' }, beneficiary: { firstName: 'Carmen', lastName: 'Electra' }, created: '2026-03-08T00:00:00.000Z' },
  { id: 'L-11', provider: 'KE_MPESA', sender: { firstName: 'kim', lastName: 'Park', countryCode: 'KR' }, beneficiary: { firstName: 'Otieno', lastName: 'Odhiambo' }, created: '2026-03-09T00:00:00.000Z' },
  { id: 'k-12', provider: 'MX_SPEI', sender: { firstName: 'Zed', lastName: 'Alpha', countryCode: 'US' }, beneficiary: { firstName: 'Zoe', lastName: 'Zamora' }, created: '2026-03-10T00:00:00.000Z' },
];
const ALL_DESC = SEEDS.map((s) => s.id).reverse();

const PROVIDER_BODY: Record<Provider, { destinationCcy: string; payoutAmt: number; beneficiary: Record<string, string> }> = {
  MX_SPEI: { destinationCcy: 'MXN', payoutAmt: 100, beneficiary: { accountNumber: '032180000118359719' } },
  PH_GCASH: { destinationCcy: 'PHP', payoutAmt: 250, beneficiary: { phone: '+639171234567' } },
  KE_MPESA: { destinationCcy: 'KES', payoutAmt: 500, beneficiary: { phone: '+254712345678' } },
};
const COUNTRY_OF: Record<Provider, string> = { MX_SPEI: 'MX', PH_GCASH: 'PH', KE_MPESA: 'KE' };

/** What the list sorts by, per payout, as the contract defines it. */
interface Model {
  sourceMemberPayoutId: string;
  payoutId: string;
  creationTime: number;
  completionTime: number | null;
  senderName: string;
  senderCountry: string | null;
  beneficiaryName: string;
  beneficiaryCountry: string;
  payoutProviderId: string;
  payoutStatus: string;
}
type Page = { payouts: Array<Record<string, unknown>>; page: number; size: number; totalPages: number; totalRecords: number };

const fullName = (p: Person) => [p.firstName, p.middleName, p.lastName].filter(Boolean).join(' ');

let service: TestService;
let member1: string;
let member2: string;
const models: Model[] = [];
const idOf = new Map<string, string>(); // sourceMemberPayoutId -> payoutId (member 1)
const member2Ids: string[] = [];

async function createPayout(accessToken: string, seed: Seed): Promise<string> {
  const extra = PROVIDER_BODY[seed.provider];
  const response = await fetch(`${service.url}/v2/payouts`, {
    method: 'POST',
    headers: { ...bearer(accessToken), 'content-type': 'application/json' },
    body: JSON.stringify({
      sourceMemberPayoutId: seed.id, payoutProviderId: seed.provider, destinationCcy: extra.destinationCcy, payoutAmt: extra.payoutAmt,
      sender: seed.sender, beneficiary: { ...seed.beneficiary, ...extra.beneficiary },
    }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  const { payoutId } = await json<{ payoutId: string }>(response);
  await service.db.query('UPDATE payouts SET creation_time = $2 WHERE payout_id = $1', [payoutId, seed.created]);
  return payoutId;
}

async function processPayout(accessToken: string, payoutId: string): Promise<string> {
  const response = await fetch(`${service.url}/v2/payouts/${payoutId}/process`, { method: 'POST', headers: bearer(accessToken) });
  assert.equal(response.status, 200, await response.clone().text());
  return (await json<{ payoutStatus: string }>(response)).payoutStatus;
}

before(async () => {
  service = await startTestService({ WORKERS: '0' });
  member1 = await token(service.url, { scope: 'payouts' });
  member2 = await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret, scope: 'payouts' });
  for (const seed of SEEDS) {
    const payoutId = await createPayout(member1, seed);
    idOf.set(seed.id, payoutId);
    const payoutStatus = seed.process ? await processPayout(member1, payoutId) : 'ACCP';
    if (seed.completed) await service.db.query('UPDATE payouts SET completion_time = $2 WHERE payout_id = $1', [payoutId, seed.completed]);
    models.push({
      sourceMemberPayoutId: seed.id, payoutId, creationTime: Date.parse(seed.created),
      completionTime: seed.completed ? Date.parse(seed.completed) : null,
      senderName: fullName(seed.sender), senderCountry: seed.sender.countryCode ?? null,
      beneficiaryName: fullName(seed.beneficiary), beneficiaryCountry: COUNTRY_OF[seed.provider],
      payoutProviderId: seed.provider, payoutStatus,
    });
  }
  // A stored empty text ('' rather than NULL) is an empty value too and must sort with the NULLs.
  await service.db.query("UPDATE payouts SET sender_country = '' WHERE payout_id = $1", [idOf.get('L-11')]);
  models.find((m) => m.sourceMemberPayoutId === 'L-11')!.senderCountry = '';
  // Another member, with an id, names and a day that collide with member 1's.
  member2Ids.push(await createPayout(member2, { ...SEEDS[0]!, process: false }));
  member2Ids.push(await createPayout(member2, { ...SEEDS[2]!, id: 'M2-01' }));
});
after(async () => {
  await service?.stop();
});

const get = (query: string, accessToken = member1) => fetch(`${service.url}/v2/payouts${query ? `?${query}` : ''}`, { headers: bearer(accessToken) });

async function list(query: string, accessToken = member1): Promise<Page> {
  const response = await get(query, accessToken);
  assert.equal(response.status, 200, `${query}: ${await response.clone().text()}`);
  return json<Page>(response);
}

const idsOf = (page: Page) => page.payouts.map((p) => p['sourceMemberPayoutId']);
const listIds = async (query: string) => idsOf(await list(query));

async function expect400(query: string, detail: RegExp) {
  const response = await get(query);
  assert.equal(response.status, 400, query);
  const body = await json(response);
  assert.equal(body['code'], 'VALIDATION_ERROR', query);
  assert.equal(typeof body['message'], 'string');
  assert.match(String(body['detail']), detail, query);
}

/** The contract's order: empty values last, text by lower case, then creationTime, then payoutId, all in one direction. */
function expectedOrder(field: keyof Model, direction: 'asc' | 'desc'): string[] {
  const sign = direction === 'asc' ? 1 : -1;
  const keyOf = (m: Model, f: keyof Model) => {
    const value = m[f];
    return typeof value === 'string' ? value.toLowerCase() : value;
  };
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  return [...models]
    .sort((a, b) => {
      const ka = keyOf(a, field);
      const kb = keyOf(b, field);
      const emptyA = ka === null || ka === '';
      const emptyB = kb === null || kb === '';
      if (emptyA !== emptyB) return emptyA ? 1 : -1;
      if (!emptyA && !emptyB) {
        const byField = compare(ka!, kb!);
        if (byField !== 0) return sign * byField;
      }
      return sign * compare(a.creationTime, b.creationTime) || sign * compare(a.payoutId, b.payoutId);
    })
    .map((m) => m.sourceMemberPayoutId);
}

describe('defaults and paging', () => {
  test('no parameters: page 0 of size 10, newest first, with the totals', async () => {
    const page = await list('');
    assert.equal(page.page, 0);
    assert.equal(page.size, 10);
    assert.equal(page.totalRecords, 13);
    assert.equal(page.totalPages, 2);
    assert.deepEqual(idsOf(page), ALL_DESC.slice(0, 10));
    const second = await list('page=1');
    assert.deepEqual(idsOf(second), ALL_DESC.slice(10));
    assert.equal(second.totalPages, 2);
  });

  test('every item is the payout record GET /v2/payouts/{id} answers', async () => {
    const page = await list('size=100');
    assert.equal(page.payouts.length, 13);
    for (const item of page.payouts) {
      const single = await fetch(`${service.url}/v2/payouts/${String(item['payoutId'])}`, { headers: bearer(member1) });
      assert.equal(single.status, 200);
      assert.deepEqual(item, await json(single));
    }
    const paid = page.payouts.find((p) => p['sourceMemberPayoutId'] === 'L-00')!;
    assert.equal(paid['payoutStatus'], 'PRCD');
    assert.equal(paid['completionTime'], '2026-03-02T23:59:59.999Z');
    assert.equal(paid['creationTime'], '2026-03-01T08:00:00.000Z');
  });

  test('pages of 5 cover the list once, in order; a page past the end is empty with the same totals', async () => {
    const pages = await Promise.all([0, 1, 2, 3].map((n) => list(`size=5&page=${n}`)));
    assert.deepEqual(pages.map((p) => p.payouts.length), [5, 5, 3, 0]);
    for (const [n, p] of pages.entries()) {
      assert.equal(p.page, n);
      assert.equal(p.size, 5);
      assert.equal(p.totalRecords, 13);
      assert.equal(p.totalPages, 3);
    }
    assert.deepEqual(pages.flatMap(idsOf), ALL_DESC);
    const far = await list('size=10&page=5000');
    assert.deepEqual(far.payouts, []);
    assert.equal(far.totalRecords, 13);
    assert.equal(far.totalPages, 2);
  });

  test('size 1 and 100 are allowed; totals follow a filter', async () => {
    const last = await list('size=1&page=12');
    assert.deepEqual(idsOf(last), ['L-00']);
    assert.equal(last.totalPages, 13);
    assert.equal((await list('size=100')).payouts.length, 13);
    const mx = await list('beneficiaryCountry=MX&size=3&page=2');
    assert.deepEqual(idsOf(mx), ['L-00']);
    assert.equal(mx.totalRecords, 7);
    assert.equal(mx.totalPages, 3);
    const none = await list('payoutProviderId=NOPE');
    assert.deepEqual(none, { payouts: [], page: 0, size: 10, totalPages: 0, totalRecords: 0 });
  });
});

describe('sorting', () => {
  const fields: Array<keyof Model> = [
    'sourceMemberPayoutId', 'payoutId', 'creationTime', 'completionTime', 'senderName',
    'senderCountry', 'beneficiaryName', 'beneficiaryCountry', 'payoutProviderId', 'payoutStatus',
  ];
  for (const field of fields) {
    test(`sortField ${field}, asc and desc`, async () => {
      for (const direction of ['asc', 'desc'] as const) {
        assert.deepEqual(await listIds(`size=100&sortField=${field}&sortDirection=${direction}`), expectedOrder(field, direction), direction);
      }
    });
  }

  test('sortDirection in any case; sortField alone sorts desc', async () => {
    const asc = expectedOrder('senderName', 'asc');
    const desc = expectedOrder('senderName', 'desc');
    for (const direction of ['ASC', 'Asc', 'aSc']) assert.deepEqual(await listIds(`size=100&sortField=senderName&sortDirection=${direction}`), asc);
    for (const direction of ['DESC', 'Desc', 'dEsC']) assert.deepEqual(await listIds(`size=100&sortField=senderName&sortDirection=${direction}`), desc);
    assert.deepEqual(await listIds('size=100&sortField=senderName'), desc);
    assert.deepEqual(await listIds('size=100&sortDirection=ASC'), [...ALL_DESC].reverse());
  });

  test('text sorts ignore case; equal names fall back to creation time in the same direction', async () => {
    assert.deepEqual(await listIds('size=100&sortField=senderName&sortDirection=asc'), [
      'L-01', 'L-02', 'L-03', 'L-04', 'L-05', 'L-07', 'L-08', 'L-09', 'L-10', 'L-00', 'L-06', 'L-11', 'k-12',
    ]);
    assert.deepEqual((await listIds('size=100&sortField=senderName&sortDirection=desc')).slice(0, 4), ['k-12', 'L-11', 'L-06', 'L-00']);
    // 'k-12' before 'L-..' only when case is ignored
    assert.deepEqual((await listIds('size=100&sortField=sourceMemberPayoutId&sortDirection=asc'))[0], 'k-12');
  });

  test('empty values (none or "") come last in both directions', async () => {
    assert.deepEqual(await listIds('size=100&sortField=senderCountry&sortDirection=asc'), [
      'L-05', 'L-03', 'L-08', 'L-01', 'L-00', 'L-06', 'L-07', 'L-10', 'k-12', 'L-02', 'L-04', 'L-09', 'L-11',
    ]);
    assert.deepEqual(await listIds('size=100&sortField=senderCountry&sortDirection=desc'), [
      'k-12', 'L-10', 'L-07', 'L-06', 'L-00', 'L-01', 'L-08', 'L-03', 'L-05', 'L-11', 'L-09', 'L-04', 'L-02',
    ]);
    const completedAsc = await listIds('size=100&sortField=completionTime&sortDirection=asc');
    assert.deepEqual(completedAsc.slice(0, 3), ['L-00', 'L-04', 'L-08']);
    const completedDesc = await listIds('size=100&sortField=completionTime&sortDirection=desc');
    assert.deepEqual(completedDesc.slice(0, 3), ['L-08', 'L-04', 'L-00']);
    assert.deepEqual(completedDesc.slice(3), ALL_DESC.filter((id) => !['L-00', 'L-04', 'L-08'].includes(id)));
  });

  test('paging a sorted list follows the same order', async () => {
    const whole = expectedOrder('beneficiaryName', 'asc');
    const pages = await Promise.all([0, 1, 2].map((n) => listIds(`size=5&page=${n}&sortField=beneficiaryName&sortDirection=asc`)));
    assert.deepEqual(pages.flat(), whole);
  });
});

describe('filters', () => {
  test('sourceMemberPayoutId and payoutId match exactly', async () => {
    assert.deepEqual(await listIds('sourceMemberPayoutId=L-03'), ['L-03']);
    assert.deepEqual(await listIds('sourceMemberPayoutId=l-03'), []);
    assert.deepEqual(await listIds(`payoutId=${idOf.get('L-04')}`), ['L-04']);
    assert.deepEqual(await listIds(`payoutId=${idOf.get('L-04')!.toUpperCase()}`), ['L-04']);
    assert.deepEqual(await listIds('payoutId=00000000-0000-4000-8000-000000000000'), []);
  });

  test('creationTime and completionTime match the whole UTC day and nothing outside it', async () => {
    assert.deepEqual(await listIds('creationTime=2026-03-01'), ['L-01', 'L-00']);
    assert.deepEqual(await listIds('creationTime=2026-03-02'), ['L-03', 'L-02']);
    assert.deepEqual(await listIds('creationTime=2026-03-11'), []);
    assert.deepEqual(await listIds('completionTime=2026-03-02'), ['L-00']);
    assert.deepEqual(await listIds('completionTime=2026-03-03'), ['L-04']);
    assert.deepEqual(await listIds('completionTime=2026-03-01'), []);
  });

  test('senderName and beneficiaryName match any part of the full name, ignoring case', async () => {
    assert.deepEqual(await listIds('senderName=john'), ['L-06', 'L-00']);
    assert.deepEqual(await listIds('senderName=N%20SMI'), ['L-06', 'L-00']);
    assert.deepEqual(await listIds('senderName=kowalski'), ['L-01']);
    assert.deepEqual(await listIds('beneficiaryName=MARIA'), ['L-04', 'L-00']);
    assert.deepEqual(await listIds('beneficiaryName=maria%20fernanda%20ruiz'), ['L-04']);
    assert.deepEqual(await listIds('beneficiaryName=nobody'), []);
  });

  test('% and _ in a name filter are ordinary characters', async () => {
    // Unescaped, n_d would also match "Juan dela Cruz" and % would match everything.
    assert.deepEqual(await listIds('beneficiaryName=n_d'), ['L-07']);
    assert.deepEqual(await listIds('beneficiaryName=%25'), []);
    assert.deepEqual(await listIds('senderName=_'), []);
  });

  test('senderCountry matches the alpha-2 code in any case', async () => {
    assert.deepEqual(await listIds('senderCountry=us'), ['k-12', 'L-10', 'L-07', 'L-06', 'L-00']);
    assert.deepEqual(await listIds('senderCountry=PL'), ['L-01']);
    assert.deepEqual(await listIds('senderCountry=FR'), []);
  });

  test('beneficiaryCountry takes the alpha-2 or the ISO numeric code (484 = MX)', async () => {
    const mx = ['k-12', 'L-10', 'L-08', 'L-05', 'L-04', 'L-01', 'L-00'];
    assert.deepEqual(await listIds('beneficiaryCountry=MX&size=100'), mx);
    assert.deepEqual(await list('beneficiaryCountry=484&size=100'), await list('beneficiaryCountry=MX&size=100'));
    assert.deepEqual(await listIds('beneficiaryCountry=mx&size=100'), mx);
    assert.deepEqual(await listIds('beneficiaryCountry=608'), ['L-09', 'L-06', 'L-02']);
    assert.deepEqual(await listIds('beneficiaryCountry=PH'), ['L-09', 'L-06', 'L-02']);
    assert.deepEqual(await listIds('beneficiaryCountry=404'), ['L-11', 'L-07', 'L-03']);
    assert.deepEqual(await listIds('beneficiaryCountry=076'), []);
    assert.deepEqual(await listIds('beneficiaryCountry=76'), []);
    const unknown = await list('beneficiaryCountry=999');
    assert.deepEqual(unknown, { payouts: [], page: 0, size: 10, totalPages: 0, totalRecords: 0 });
  });

  test('payoutProviderId and payoutStatus match exactly; filters combine', async () => {
    assert.deepEqual(await listIds('payoutProviderId=KE_MPESA'), ['L-11', 'L-07', 'L-03']);
    assert.deepEqual(await listIds('payoutStatus=PRCD'), ['L-08', 'L-04', 'L-00']);
    assert.deepEqual(await listIds('payoutStatus=RJCT'), ['L-05']);
    assert.equal((await list('payoutStatus=ACCP')).totalRecords, 9);
    assert.deepEqual(await listIds('payoutStatus=CNCL'), []);
    assert.deepEqual(await listIds('beneficiaryCountry=484&payoutStatus=PRCD&senderName=smith'), ['L-00']);
    assert.deepEqual(await listIds('payoutProviderId=MX_SPEI&creationTime=2026-03-01&sortDirection=asc'), ['L-00', 'L-01']);
  });
});

describe('validation', () => {
  test('size over 100 or under 1 names size', async () => {
    await expect400('size=101', /^size: /);
    await expect400('size=0', /^size: /);
    await expect400('size=ten', /^size: /);
  });

  test('page must be a whole number from 0', async () => {
    await expect400('page=-1', /^page: /);
    await expect400('page=1.5', /^page: /);
  });

  test('sortField and sortDirection must be known values', async () => {
    await expect400('sortField=payoutAmt', /^sortField: /);
    await expect400('sortField=creation_time', /^sortField: /);
    await expect400('sortDirection=up', /^sortDirection: /);
    await expect400('sortDirection=', /^sortDirection: /);
  });

  test('filters are checked: status, UUID, dates, countries', async () => {
    await expect400('payoutStatus=DONE', /^payoutStatus: /);
    await expect400('payoutStatus=prcd', /^payoutStatus: /);
    await expect400('payoutId=not-a-uuid', /^payoutId: /);
    await expect400(`payoutId=${idOf.get('L-00')}x`, /^payoutId: /);
    await expect400('creationTime=2026-02-30', /^creationTime: /);
    await expect400('creationTime=2026-3-1', /^creationTime: /);
    await expect400('creationTime=2026-03-01T00:00:00Z', /^creationTime: /);
    await expect400('completionTime=yesterday', /^completionTime: /);
    await expect400('senderCountry=USA', /^senderCountry: /);
    await expect400('beneficiaryCountry=MEX', /^beneficiaryCountry: /);
    await expect400('beneficiaryCountry=1234', /^beneficiaryCountry: /);
    await expect400('beneficiaryCountry=M', /^beneficiaryCountry: /);
  });

  test('an unknown parameter is refused', async () => {
    await expect400('amount=5', /^amount: is not a known property/);
  });

  test('the payouts scope is needed', async () => {
    const other = await token(service.url, { scope: 'settlements' });
    const forbidden = await get('', other);
    assert.equal(forbidden.status, 403);
    assert.equal((await json(forbidden))['code'], 'INSUFFICIENT_SCOPE');
    const anonymous = await fetch(`${service.url}/v2/payouts`);
    assert.equal(anonymous.status, 401);
  });
});

describe('isolation', () => {
  test("a member sees only its own payouts, whatever the filter", async () => {
    const own = await list('size=100');
    const seen = own.payouts.map((p) => p['payoutId']);
    for (const id of member2Ids) assert.ok(!seen.includes(id));
    const byId = await list('sourceMemberPayoutId=L-00');
    assert.deepEqual(byId.payouts.map((p) => p['payoutId']), [idOf.get('L-00')]);
    assert.deepEqual(await listIds(`payoutId=${member2Ids[0]}`), []);
    assert.deepEqual(await listIds('creationTime=2026-03-01'), ['L-01', 'L-00']);
  });

  test('the other member sees its two payouts only', async () => {
    const theirs = await list('size=100', member2);
    assert.equal(theirs.totalRecords, 2);
    assert.deepEqual(theirs.payouts.map((p) => p['payoutId']), [member2Ids[1], member2Ids[0]]);
    assert.deepEqual(idsOf(theirs), ['M2-01', 'L-00']);
    assert.deepEqual(idsOf(await list(`payoutId=${idOf.get('L-04')}`, member2)), []);
  });
});
