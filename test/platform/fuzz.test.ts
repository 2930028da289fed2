// Property-based fuzzing of the whole HTTP API. Every operation of the served OpenAPI document
// gets requests generated from its own schemas: well-formed ones (reaching the domain code with
// ids of resources that exist) and hostile ones (NUL, lone surrogates, very long text, extreme
// numbers, wrong types, deep nesting, unknown and repeated keys, odd percent-encodings, content
// types and bodies, junk credentials). Whatever comes in, the answer is never a 5xx, always has a
// request id, and a refusal has the contract's error body and stored nothing.
//
// Replay a failure with the seed it prints: FUZZ_SEED=<seed> (FUZZ_RUNS sets the runs per operation).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestService, type TestService } from '../support/service.ts';
import { basic, bearer, DEMO, DEMO_2, json, token } from '../support/http.ts';
import { payoutApi, payoutBody } from '../support/payouts.ts';
import { settlementApi } from '../support/settlements.ts';
import { checkAnswer, operationsOf, requestArb, send, type Credentials, type FuzzRequest, type OpenApiDocument } from '../support/fuzz-requests.ts';
import type { ValueContext } from '../support/fuzz-values.ts';

const SEED = process.env['FUZZ_SEED'] === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env['FUZZ_SEED']);
const RUNS_PER_OPERATION = Number(process.env['FUZZ_RUNS'] ?? 60);

let service: TestService;
let doc: OpenApiDocument;
let credentials: Credentials;
let pools: Record<string, string[]>;

before(async () => {
  // No workers: nothing changes in the background, so a refusal that stored something shows.
  service = await startTestService({ WORKERS: '0', WEBHOOK_WORKERS: '0', RATE_LIMIT_PER_MINUTE: '1000000' });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as OpenApiDocument;
  const accessToken = await token(service.url);
  credentials = {
    accessToken,
    narrowToken: await token(service.url, { scope: 'payouts' }),
    otherMemberToken: await token(service.url, { clientId: DEMO_2.clientId, secret: DEMO_2.secret }),
    basic: basic(DEMO.clientId, DEMO.secret),
  };
  pools = await createResources(accessToken);
});
after(async () => {
  await service?.stop();
});

/** A few resources of every kind, so that path parameters and ids in bodies reach the domain code. */
async function createResources(accessToken: string): Promise<Record<string, string[]>> {
  const payouts = payoutApi(service.url, accessToken);
  const payoutIds: string[] = [];
  for (const provider of ['MX_SPEI', 'MX_CASH', 'BR_PIX', 'MX_SPEI']) payoutIds.push((await payouts.created(payoutBody(provider)))['payoutId'] as string);
  assert.equal((await payouts.process(payoutIds[0]!)).status, 200);
  assert.equal((await payouts.process(payoutIds[1]!)).status, 200);
  assert.equal((await payouts.cancel(payoutIds[2]!)).status, 202);
  const settlements = settlementApi(service.url, accessToken);
  const settlementIds = [
    (await settlements.settle('PARTNER_MX'))['settlementId'] as string,
    (await settlements.settle('PARTNER_MX', { executionInterval: 'ONE_HOUR' }))['settlementId'] as string,
  ];
  const rateIds = [(await settlements.lockRate('PARTNER_MX')).rateId, (await settlements.lockRate('PARTNER_BR')).rateId];
  const endpointIds: string[] = [];
  for (const url of ['https://hooks.example.com/a', 'https://hooks.example.com/b']) {
    const response = await fetch(`${service.url}/v2/webhook-endpoints`, {
      method: 'POST', headers: { ...bearer(accessToken), 'content-type': 'application/json' }, body: JSON.stringify({ url }),
    });
    assert.equal(response.status, 201);
    endpointIds.push((await json(response))['webhookEndpointId'] as string);
  }
  const client = await fetch(`${service.url}/v2/oauth-clients`, {
    method: 'POST', headers: { ...bearer(accessToken), 'content-type': 'application/json' }, body: JSON.stringify({ name: 'fuzz', scopes: ['payouts'] }),
  });
  assert.equal(client.status, 201);
  const members = ['PARTNER_MX', 'PARTNER_BR', 'PARTNER_PH', 'PARTNER_GH', 'DEMO_SOURCE_1', 'DEMO_SOURCE_2', 'NOBODY'];
  return {
    payoutId: payoutIds,
    settlementId: settlementIds,
    rateId: rateIds,
    webhookEndpointId: endpointIds,
    // never the caller's own client: revoking it would turn every later request into a 401
    clientId: [(await json(client))['clientId'] as string, DEMO_2.clientId],
    payoutProviderId: ['MX_SPEI', 'MX_CASH', 'BR_PIX', 'PH_GCASH', 'KE_MPESA', 'NG_NIP', 'IN_IMPS', 'NOPE'],
    destinationMemberId: members,
    after: [],
  };
}

/** Keys of a successful answer whose values are ids worth reusing, and the pool each goes to. */
const HARVESTED: Record<string, string> = {
  payoutId: 'payoutId', settlementId: 'settlementId', rateId: 'rateId', webhookEndpointId: 'webhookEndpointId', clientId: 'clientId', eventId: 'after',
};
const POOL_SIZE_MAX = 50;

/** Ids found in a successful answer join the pools, so that later requests reach those resources. */
function harvestIds(text: string): void {
  if (!text.startsWith('{') && !text.startsWith('[')) return;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, item] of Object.entries(value)) {
      const pool = Object.hasOwn(HARVESTED, key) ? pools[HARVESTED[key]!] : undefined;
      if (pool && typeof item === 'string' && item !== DEMO.clientId && !pool.includes(item) && pool.length < POOL_SIZE_MAX) pool.push(item);
      else visit(item);
    }
  };
  visit(JSON.parse(text));
}

const STORED_TABLES = [
  'payouts', 'settlements', 'settlement_rates', 'settlement_steps', 'webhook_endpoints', 'webhook_deliveries', 'oauth_clients', 'events',
  'ledger_transfers', 'idempotency_keys', 'payout_expiry_queue', 'members', 'corridors',
];

/** Every stored row of the tables a request may write, folded into one digest per table. */
async function storedState(): Promise<Record<string, string>> {
  const parts = STORED_TABLES.map((t) => `(SELECT count(*) || ':' || coalesce(md5(string_agg(r::text, ',' ORDER BY r::text)), '') FROM ${t} r) AS ${t}`);
  const { rows } = await service.db.query<Record<string, string>>(`SELECT ${parts.join(', ')}, (SELECT count(*)::text FROM graphile_worker.jobs) AS jobs`);
  return rows[0]!;
}

/** POST /v2/settlements with an Idempotency-Key: its answer, a refusal too, is kept for replays. */
const keyedSettlement = (request: FuzzRequest) =>
  request.method === 'POST' && request.target.split('?')[0] === '/v2/settlements' && request.headers['idempotency-key'] !== undefined;

test('every operation of the OpenAPI document, fuzzed', async (t) => {
  t.diagnostic(`FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS_PER_OPERATION}`);
  const operations = operationsOf(doc);
  assert.ok(operations.length >= 30, `only ${operations.length} operations in the document`);
  let state = await storedState();
  const counts = { requests: 0, refused: 0 };
  const statuses = new Map<string, number>();
  for (const op of operations) {
    await t.test(`${op.method} ${op.path}`, async () => {
      const ctx = (hostile: boolean): ValueContext => ({ doc, hostile, pools });
      const requests = fc.oneof({ weight: 1, arbitrary: requestArb(op, ctx(false), credentials) }, { weight: 3, arbitrary: requestArb(op, ctx(true), credentials) });
      await fc.assert(
        fc.asyncProperty(requests, async (request) => {
          const answer = await send(service.url, request);
          counts.requests++;
          const key = `${op.method} ${op.path} ${request.method === op.method ? '' : `(as ${request.method}) `}${answer.status}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          checkAnswer(request, answer);
          if (answer.status < 300) harvestIds(answer.text);
          const previous = state;
          state = await storedState();
          if (answer.status >= 400) {
            counts.refused++;
            // a keyed settlement creation stores its refusal under its key, by design, to replay it
            if (keyedSettlement(request)) previous['idempotency_keys'] = state['idempotency_keys']!;
            assert.deepEqual(state, previous, `a refused request stored something: ${request.method} ${request.target.slice(0, 200)} -> ${answer.status} ${answer.text.slice(0, 200)}`);
          }
        }),
        { seed: SEED, numRuns: RUNS_PER_OPERATION, endOnFailure: process.env['FUZZ_SHRINK'] === undefined },
      );
    });
  }
  t.diagnostic(`${counts.requests} requests, ${counts.refused} refused`);
  if (process.env['FUZZ_STATUSES'] !== undefined) for (const [key, n] of [...statuses].sort()) t.diagnostic(`${key}: ${n}`);
});
