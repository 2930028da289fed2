// The promises of rails/rail.ts, kept by every rail: the sandbox's simulated partners and the HTTP
// rail talking to the reference partner (a separate process). Any new rail joins this suite.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { eventually } from '../support/payouts.ts';
import { spawnReferencePartner, type ReferencePartner } from '../support/reference-partner.ts';
import { createSandboxRails } from '../../src/payouts/rails/sandbox.ts';
import { createHttpRail, createRailAgent } from '../../src/payouts/rails/http.ts';
import { requireRail, type PayoutForRail, type PayoutRail } from '../../src/payouts/rails/rail.ts';
import { resolveServiceSigningKey } from '../../src/partners/service-key.ts';
import { createSignedCall } from '../../src/partners/signed-call.ts';

let service: TestService;
let partner: ReferencePartner;
/** The service's own key: the reference partner fetches its public half from /partner-api/v1/keys. */
let serviceKey: Awaited<ReturnType<typeof resolveServiceSigningKey>>;
const agent = createRailAgent();

before(async () => {
  service = await startTestService({ WORKERS: '0' });
  serviceKey = await resolveServiceSigningKey({ dataDir: service.dataDir, keyFile: undefined });
  partner = await spawnReferencePartner({ serviceUrl: service.url });
});
after(async () => {
  await partner?.stop();
  await agent.close();
  await service?.stop();
});

function payout(method: PayoutForRail['payoutMethod'] = 'BANK_ACCOUNT', amount = '125.50'): PayoutForRail {
  return {
    payoutId: randomUUID(),
    payoutProviderId: method === 'CASH_PICKUP' ? 'MX_CASH' : 'MX_SPEI',
    payoutMethod: method,
    destinationMemberId: 'PARTNER_MX',
    destinationCcy: 'MXN',
    payoutAmt: amount,
    sender: { firstName: 'John', lastName: 'Smith' },
    beneficiary: { firstName: 'Maria', lastName: 'Lopez', accountNumber: '032180000118359719' },
  };
}

const signal = () => AbortSignal.timeout(5000);

interface Subject {
  rail: () => PayoutRail;
  /** How many times the partner's books hold the payout as received, and how often it was submitted. */
  books: (payoutId: string) => Promise<{ held: number; submissions: number }>;
  /** A rail whose next call hangs (before the partner records anything, or after it did). */
  hanging: (when: 'BEFORE_RECEIVING' | 'AFTER_RECEIVING') => Promise<PayoutRail>;
}

const subjects: Record<string, Subject> = {
  sandbox: {
    rail: () => requireRail(createSandboxRails({ db: service.db }), payout()),
    async books(payoutId) {
      const { rows } = await service.db.query<{ submissions: number }>('SELECT submissions FROM sandbox_rail_submissions WHERE payout_id = $1', [payoutId]);
      return { held: rows.length, submissions: rows[0]?.submissions ?? 0 };
    },
    // the simulated partner answers after its latency; BEFORE and AFTER are alike to a caller that stops waiting
    hanging: async () => requireRail(createSandboxRails({ db: service.db, latencyMs: 10_000 }), payout()),
  },
  http: {
    rail: () => createHttpRail({ baseUrl: partner.url, signingKey: serviceKey, dispatcher: agent }),
    async books(payoutId) {
      const row = (await partner.books()).payouts.find((p) => p.payoutId === payoutId);
      return { held: row ? 1 : 0, submissions: row?.submissions ?? 0 };
    },
    async hanging(when) {
      await partner.behave({ hang: when });
      return createHttpRail({ baseUrl: partner.url, signingKey: serviceKey, dispatcher: agent });
    },
  },
};


for (const [name, subject] of Object.entries(subjects)) {
  describe(`${name} rail`, () => {
    test('submit is idempotent: the same id twice gets the same answer and is paid once', async () => {
      const p = payout();
      const first = await subject.rail().submit(p, signal());
      const second = await subject.rail().submit(p, signal());
      assert.deepEqual(first, { outcome: 'CONFIRMED' });
      assert.deepEqual(second, first);
      assert.deepEqual(await subject.books(p.payoutId), { held: 1, submissions: 2 });
      assert.deepEqual(await subject.rail().status(p, signal()), { status: 'PAID' });
    });

    test('cash pickup is PENDING, ready for pickup', async () => {
      const p = payout('CASH_PICKUP');
      assert.deepEqual(await subject.rail().submit(p, signal()), { outcome: 'PENDING', cashoutStatus: 'READY_FOR_PICKUP' });
      assert.deepEqual(await subject.rail().status(p, signal()), { status: 'PENDING', cashoutStatus: 'READY_FOR_PICKUP' });
    });

    test('a cancel of an id never received blocks a later submission of it', async () => {
      const p = payout();
      assert.deepEqual(await subject.rail().cancel(p, signal()), { outcome: 'CANCELLED' });
      const late = await subject.rail().submit(p, signal());
      assert.equal(late.outcome, 'REJECTED');
      assert.deepEqual(await subject.rail().status(p, signal()), { status: 'CANCELLED' });
    });

    test('a cancel of a pending payout withdraws it', async () => {
      const p = payout('CASH_PICKUP');
      await subject.rail().submit(p, signal());
      assert.deepEqual(await subject.rail().cancel(p, signal()), { outcome: 'CANCELLED' });
      assert.deepEqual(await subject.rail().status(p, signal()), { status: 'CANCELLED' });
    });

    test('a cancel after payment answers ALREADY_PAID', async () => {
      const p = payout();
      await subject.rail().submit(p, signal());
      assert.deepEqual(await subject.rail().cancel(p, signal()), { outcome: 'ALREADY_PAID' });
      assert.deepEqual(await subject.rail().status(p, signal()), { status: 'PAID' });
    });

    test('a rejected payout is final: cancel answers ALREADY_FINAL', async () => {
      const p = { ...payout(), beneficiary: { firstName: 'Maria', lastName: 'REJECT' } };
      const answer = await subject.rail().submit(p, signal());
      assert.equal(answer.outcome, 'REJECTED');
      const cancel = await subject.rail().cancel(p, signal());
      assert.equal(cancel.outcome, 'ALREADY_FINAL');
    });

    test('status of an id never received is NOT_FOUND', async () => {
      assert.deepEqual(await subject.rail().status(payout(), signal()), { status: 'NOT_FOUND' });
    });

    test('a partner that does not answer in time makes the call throw (in doubt), never an answer', async () => {
      const p = payout();
      const rail = await subject.hanging('BEFORE_RECEIVING');
      const startedMs = Date.now();
      await assert.rejects(rail.submit(p, AbortSignal.timeout(300)));
      assert.ok(Date.now() - startedMs < 4000, 'the signal bounds the call');
    });
  });
}

describe('http rail, beyond the shared promises', () => {
  const rail = () => subjects['http']!.rail();

  test('a partner that records the payout and then hangs: the call throws, and status then tells it was received', async () => {
    const p = payout();
    const hanging = await subjects['http']!.hanging('AFTER_RECEIVING');
    await assert.rejects(hanging.submit(p, AbortSignal.timeout(300)));
    assert.deepEqual(await rail().status(p, signal()), { status: 'PAID' });
    assert.deepEqual(await rail().submit(p, signal()), { outcome: 'CONFIRMED' }, 'resending is safe: paid once');
    assert.deepEqual(await subjects['http']!.books(p.payoutId), { held: 1, submissions: 2 });
  });

  test('a partner that hangs before recording: the call throws, and status says NOT_FOUND', async () => {
    const p = payout();
    const hanging = await subjects['http']!.hanging('BEFORE_RECEIVING');
    await assert.rejects(hanging.submit(p, AbortSignal.timeout(300)));
    assert.deepEqual(await rail().status(p, signal()), { status: 'NOT_FOUND' });
  });

  test('the amount reaches the partner as exact decimal text in the currency\'s decimals', async () => {
    const big = payout('BANK_ACCOUNT', '12345678901234.5600');
    await rail().submit(big, signal());
    const row = (await partner.books()).payouts.find((x) => x.payoutId === big.payoutId);
    assert.equal(row?.amount, '12345678901234.56');
  });

  test('a 503 is retried within the signal: the next attempt is answered, and the partner recorded one payout', async () => {
    const p = payout();
    await partner.behave({ errorStatus: 503 });
    assert.deepEqual(await rail().submit(p, signal()), { outcome: 'CONFIRMED' });
    assert.deepEqual(await subjects['http']!.books(p.payoutId), { held: 1, submissions: 1 });
  });

  test('a partner that keeps answering 503 makes the call throw after the bounded attempts', async () => {
    const p = payout();
    await partner.behave({ errorStatus: 503 }, p.payoutId);
    await assert.rejects(rail().status(p, signal()), /503/);
    await assert.rejects(rail().submit(p, signal()), /503/);
    assert.deepEqual(await subjects['http']!.books(p.payoutId), { held: 0, submissions: 0 });
  });

  test('a 404 without the protocol\'s body (a wrong base URL) throws instead of answering NOT_FOUND', async () => {
    const wrong = createHttpRail({ baseUrl: `${partner.url}/elsewhere`, signingKey: serviceKey, dispatcher: agent });
    await assert.rejects(wrong.status(payout(), signal()));
  });

  test('a partner that cannot be reached throws', async () => {
    const nowhere = createHttpRail({ baseUrl: 'http://127.0.0.1:9', signingKey: serviceKey, dispatcher: agent });
    await assert.rejects(nowhere.submit(payout(), signal()));
  });

  test('a call signed with a key the partner does not know is refused by it, and the rail throws', async () => {
    const other = await resolveServiceSigningKey({ dataDir: `${service.dataDir}/other`, keyFile: undefined });
    const stranger = createHttpRail({ baseUrl: partner.url, signingKey: other, dispatcher: agent });
    const p = payout();
    await assert.rejects(stranger.submit(p, signal()));
    assert.deepEqual(await subjects['http']!.books(p.payoutId), { held: 0, submissions: 0 });
  });
});

describe('http rail, batch submissions (protocol 1.2)', () => {
  const fresh = () => createHttpRail({ baseUrl: partner.url, signingKey: serviceKey, dispatcher: agent });
  const batchCalls = (status: number) => partner.calls('/v1/payout-batches')[status] ?? 0;
  /** The partner logs a call as it answers it; its log reaches this process a moment later. */
  const callsSeen = (status: number, check: (count: number) => boolean) => eventually(async () => batchCalls(status), check, 3000);
  const asRequest = (p: PayoutForRail) => ({
    payoutId: p.payoutId, payoutProviderId: p.payoutProviderId, payoutMethod: p.payoutMethod, destinationCcy: p.destinationCcy,
    payoutAmt: p.payoutAmt, sender: p.sender, beneficiary: p.beneficiary,
  });

  test('payouts submitted together go in one batch call, each answered as if it had been submitted alone', async () => {
    const rail = fresh();
    const blocked = payout();
    assert.deepEqual(await rail.cancel(blocked, signal()), { outcome: 'CANCELLED' });
    const repeat = payout();
    assert.deepEqual(await rail.submit(repeat, signal()), { outcome: 'CONFIRMED' });
    const before = batchCalls(200);
    const paid = payout();
    const cash = payout('CASH_PICKUP');
    const rejected = { ...payout(), beneficiary: { firstName: 'Maria', lastName: 'REJECT' } };
    const extra = [payout(), payout(), payout()];
    const answers = await Promise.all([paid, cash, rejected, blocked, repeat, ...extra].map((p) => rail.submit(p, signal())));
    assert.deepEqual(answers.slice(0, 5), [
      { outcome: 'CONFIRMED' },
      { outcome: 'PENDING', cashoutStatus: 'READY_FOR_PICKUP' },
      { outcome: 'REJECTED', reason: 'Beneficiary account closed (reference partner)' },
      { outcome: 'REJECTED', reason: 'Cancelled before it was received' },
      { outcome: 'CONFIRMED' },
    ]);
    assert.deepEqual(answers.slice(5), extra.map(() => ({ outcome: 'CONFIRMED' })));
    assert.ok((await callsSeen(200, (n) => n > before)) > before, 'a batch call answered 200');
    assert.deepEqual(await subjects['http']!.books(repeat.payoutId), { held: 1, submissions: 2 }, 'a repeat in a batch pays nothing twice');
    assert.deepEqual(await subjects['http']!.books(paid.payoutId), { held: 1, submissions: 1 });
    assert.deepEqual(await rail.status(blocked, signal()), { status: 'CANCELLED' }, 'a blocked id stays unpaid');
  });

  test('a batch without an answer leaves every payout in it in doubt (each call throws), and status then tells each was received', async () => {
    const rail = fresh();
    // submitted in one turn of the event loop, the six go in one batch call
    const payouts = Array.from({ length: 6 }, () => payout());
    await partner.behave({ hang: 'AFTER_RECEIVING', once: true }, payouts[5]!.payoutId); // one payout's hang holds its whole batch
    const results = await Promise.allSettled(payouts.map((p) => rail.submit(p, AbortSignal.timeout(1000))));
    assert.deepEqual(results.map((r) => r.status), payouts.map(() => 'rejected'));
    for (const p of payouts) assert.deepEqual(await rail.status(p, signal()), { status: 'PAID' });
    for (const p of payouts) assert.deepEqual(await subjects['http']!.books(p.payoutId), { held: 1, submissions: 1 });
  });

  test('a partner of protocol 1.1 (the batch route answers 404) is sent one payout per call, and not asked for batches again at once', async () => {
    await partner.serveBatches(false);
    try {
      const rail = fresh();
      const before = batchCalls(404);
      const first = Array.from({ length: 6 }, () => payout());
      assert.deepEqual(await Promise.all(first.map((p) => rail.submit(p, signal()))), first.map(() => ({ outcome: 'CONFIRMED' })));
      assert.equal(await callsSeen(404, (n) => n === before + 1), before + 1, 'one batch call answered 404');
      const second = Array.from({ length: 6 }, () => payout());
      assert.deepEqual(await Promise.all(second.map((p) => rail.submit(p, signal()))), second.map(() => ({ outcome: 'CONFIRMED' })));
      for (const p of [...first, ...second]) assert.deepEqual(await subjects['http']!.books(p.payoutId), { held: 1, submissions: 1 });
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(batchCalls(404), before + 1, 'the second round went one payout per call');
    } finally {
      await partner.serveBatches(true);
    }
  });

  test('a batch the partner refuses as a whole (400) is sent again one payout per call: only the payout it cannot take stays in doubt', async () => {
    const rail = fresh();
    const before = batchCalls(400);
    const bad = { ...payout(), payoutProviderId: 'X'.repeat(60) }; // longer than the protocol allows
    const payouts = [payout(), payout(), payout(), payout(), payout(), bad];
    const results = await Promise.allSettled(payouts.map((p) => rail.submit(p, signal())));
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    for (const r of results.slice(0, 5)) assert.deepEqual((r as PromiseFulfilledResult<unknown>).value, { outcome: 'CONFIRMED' });
    assert.equal(await callsSeen(400, (n) => n === before + 1), before + 1, 'the batch answered 400 once');
    for (const p of payouts.slice(0, 5)) assert.deepEqual(await subjects['http']!.books(p.payoutId), { held: 1, submissions: 1 });
    assert.deepEqual(await subjects['http']!.books(bad.payoutId), { held: 0, submissions: 0 });
  });

  test('the partner refuses a batch naming a payoutId twice, or of more than 100 payouts, and records none of it; a batch over 64 KiB is taken', async () => {
    const call = createSignedCall({ baseUrl: partner.url, signingKey: serviceKey, dispatcher: agent });
    const twice = payout();
    const other = payout();
    const repeated = await call('POST', '/v1/payout-batches', JSON.stringify({ payouts: [asRequest(other), asRequest(twice), asRequest(twice)] }), signal());
    assert.equal(repeated.statusCode, 400);
    assert.deepEqual(repeated.body, { code: 'VALIDATION_ERROR', detail: `payouts: payoutId ${twice.payoutId} appears twice` });
    const many = Array.from({ length: 101 }, () => payout());
    const tooMany = await call('POST', '/v1/payout-batches', JSON.stringify({ payouts: many.map(asRequest) }), signal());
    assert.equal(tooMany.statusCode, 400);
    for (const p of [twice, other, many[0]!]) assert.deepEqual(await subjects['http']!.books(p.payoutId), { held: 0, submissions: 0 });
    const large = Array.from({ length: 100 }, () => ({ ...payout(), beneficiary: { firstName: 'Maria', lastName: 'Lopez', address: 'x'.repeat(800) } }));
    const body = JSON.stringify({ payouts: large.map(asRequest) });
    assert.ok(body.length > 64 * 1024);
    const taken = await call('POST', '/v1/payout-batches', body, signal());
    assert.equal(taken.statusCode, 200);
    assert.deepEqual((taken.body as { payouts: Array<{ payoutId: string; status: string }> }).payouts, large.map((p) => ({ payoutId: p.payoutId, status: 'PAID' })));
  });

  test('an unsigned batch is refused with 401 and records nothing', async () => {
    const p = payout();
    const response = await fetch(`${partner.url}/v1/payout-batches`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ payouts: [asRequest(p)] }) });
    assert.equal(response.status, 401);
    assert.equal(((await response.json()) as { code: string }).code, 'UNAUTHORIZED');
    assert.deepEqual(await subjects['http']!.books(p.payoutId), { held: 0, submissions: 0 });
  });
});
