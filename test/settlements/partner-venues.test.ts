// The production destination venues on the partner protocol, against the reference partner (a
// separate process) and the real HTTP server: the settlement notice, its lookup by reference, the
// partner's signed confirmation turning the deposit CONFIRMED, and every unclear answer thrown.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Agent } from 'undici';
import { startTestService, tempDataDir, type TestService } from '../support/service.ts';
import { token } from '../support/http.ts';
import { eventually } from '../support/payouts.ts';
import { spawnReferencePartner, type ReferencePartner } from '../support/reference-partner.ts';
import { advanceTo, creditOf, settlementApi } from '../support/settlements.ts';
import { createPartnersAdmin } from '../../src/partners/admin.ts';
import { resolveServiceSigningKey } from '../../src/partners/service-key.ts';
import { PartnerUnclearError } from '../../src/partners/signed-call.ts';
import { createRailAgent } from '../../src/payouts/rails/http.ts';
import { createPartnerSettlementVenues, type PartnerSettlementVenues } from '../../src/settlements/partner-venues.ts';
import { VenueRefusal } from '../../src/settlements/venues.ts';
import { createPipeline } from '../../src/settlements/pipeline.ts';
import { createSandboxVenues } from '../../src/settlements/sandbox-venues.ts';

let service: TestService;
let partner: ReferencePartner;
let partnerDir: string;
let agent: Agent;
let venues: PartnerSettlementVenues;
let auth: string;

async function connect(): Promise<void> {
  partner = await spawnReferencePartner({ serviceUrl: service.url, storeDir: partnerDir });
  const admin = createPartnersAdmin({ db: service.db, actor: 'test' });
  const keys = await admin.listKeys('PARTNER_MX');
  if (!keys.some((k) => k.keyId === partner.keyId)) assert.ok((await admin.addKey('PARTNER_MX', partner.keyId, partner.publicKey)).ok);
  assert.ok((await admin.setConnection('PARTNER_MX', partner.url, true)).ok);
}

before(async () => {
  service = await startTestService({ WORKERS: '0' });
  auth = await token(service.url, { scope: 'settlements' });
  partnerDir = await tempDataDir();
  await connect();
  agent = createRailAgent();
  const signingKey = await resolveServiceSigningKey({ dataDir: service.dataDir, keyFile: undefined });
  venues = createPartnerSettlementVenues({ db: service.db, signingKey, asset: 'USDC', dispatcher: agent, callTimeoutMs: 3000 });
});
after(async () => {
  await partner?.stop();
  await agent?.close();
  await service?.stop();
});

/** A sandbox settlement to PARTNER_MX brought to its withdrawal, and the deposit order the pipeline would give. */
async function atWithdrawal(settlementAmt = 1000) {
  const created = await settlementApi(service.url, auth).settle('PARTNER_MX', { settlementAmt });
  const settlementId = String(created['settlementId']);
  await advanceTo(service.url, auth, settlementId, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');
  const reference = `${settlementId}:WITHDRAWAL`;
  const amount = creditOf(String(settlementAmt), String(created['rate']));
  return { settlementId, reference, rate: String(created['rate']), order: { reference, destinationMemberId: 'PARTNER_MX', currency: 'MXN', amount } };
}

const noticeAt = async (reference: string) => (await partner.books()).settlements.notices.find((n) => n.reference === reference);
const confirmationAt = async (reference: string) => (await partner.books()).settlements.confirmations.find((c) => c.reference === reference);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the settlement notice', () => {
  test('is sent once with the amount at the locked rate and the chain hash, repeated alike, and found by reference', async () => {
    const { settlementId, reference, order } = await atWithdrawal(1234.57);
    await partner.behaveForSettlement({ settlementOutcome: 'NEVER_CONFIRM' }, reference);
    const first = await venues.bank.deposit(order);
    assert.match(first.depositId, /^PARTNER_MX\/stl-/);
    assert.deepEqual(await venues.bank.deposit(order), first, 'the same notice twice: the same answer');
    const notice = await noticeAt(reference);
    const { rows } = await service.db.query(`SELECT result->>'txHash' AS "txHash" FROM settlement_steps WHERE settlement_id = $1 AND step = 'TRANSFER'`, [settlementId]);
    assert.deepEqual([notice?.settlementId, notice?.creditAmount, notice?.currency, notice?.notices, notice?.txHash], [settlementId, order.amount, 'MXN', 2, rows[0].txHash]);
    assert.deepEqual(await venues.bank.findDeposit(reference), { found: true, result: first });
    assert.equal(await venues.bank.status(first.depositId), 'PENDING');
  });

  test('an amount other than settlementAmt * rate is refused before anything is sent', async () => {
    const { reference, order } = await atWithdrawal(300);
    await assert.rejects(venues.bank.deposit({ ...order, amount: '1.00' }), VenueRefusal);
    assert.equal(await noticeAt(reference), undefined);
    assert.deepEqual(await venues.bank.findDeposit(reference), { found: false });
  });

  test('a partner answering 500 once is asked again: one notice, answered', async () => {
    const { reference, order } = await atWithdrawal(310);
    await partner.behaveForSettlement({ errorStatus: 500, once: true, settlementOutcome: 'NEVER_CONFIRM' }, reference);
    const deposit = await venues.bank.deposit(order);
    assert.equal((await noticeAt(reference))?.partnerNoticeId, deposit.depositId.split('/')[1]);
  });

  test('a partner answering 500 every time: deposit and lookup throw (unclear), nothing is taken as done or not done', async () => {
    const { reference, order } = await atWithdrawal(320);
    await partner.behaveForSettlement({ errorStatus: 500 }, reference);
    await assert.rejects(venues.bank.deposit(order), PartnerUnclearError);
    await assert.rejects(venues.bank.findDeposit(reference), PartnerUnclearError);
    assert.equal(await noticeAt(reference), undefined);
  });

  test('findDeposit of a reference the partner never received is not found', async () => {
    const { reference } = await atWithdrawal(330);
    assert.deepEqual(await venues.bank.findDeposit(reference), { found: false });
  });
});

describe('the partner\'s confirmation', () => {
  test('of the agreed amount is recorded and the deposit turns CONFIRMED', async () => {
    const { settlementId, reference, order } = await atWithdrawal(777.77);
    await partner.behaveForSettlement({ confirmAfterMs: 600 }, reference);
    const { depositId } = await venues.bank.deposit(order);
    assert.equal(await venues.bank.status(depositId), 'PENDING', 'not before the partner confirms');
    assert.equal(await eventually(() => venues.bank.status(depositId), (s) => s === 'CONFIRMED'), 'CONFIRMED');
    const { rows } = await service.db.query('SELECT credited_amount::text AS amount, currency FROM settlement_confirmations WHERE settlement_id = $1', [settlementId]);
    assert.deepEqual(rows, [{ amount: `${order.amount}00`, currency: 'MXN' }]);
    assert.equal((await confirmationAt(reference))?.state, 'SENT');
  });

  test('never sent: the deposit stays PENDING', async () => {
    const { reference, order } = await atWithdrawal(340);
    await partner.behaveForSettlement({ settlementOutcome: 'NEVER_CONFIRM' }, reference);
    const { depositId } = await venues.bank.deposit(order);
    await sleep(500);
    assert.equal(await venues.bank.status(depositId), 'PENDING');
    assert.equal(await confirmationAt(reference), undefined);
  });

  test('of a different amount is refused (409) and kept for review; the partner gives up on it and the deposit stays PENDING', async () => {
    const { settlementId, reference, order } = await atWithdrawal(350);
    await partner.behaveForSettlement({ settlementOutcome: 'CONFIRM_DIFFERENT_AMOUNT', confirmAfterMs: 50 }, reference);
    const { depositId } = await venues.bank.deposit(order);
    const given = await eventually(() => confirmationAt(reference), (c) => c?.state === 'GAVE_UP');
    assert.equal(given?.lastError, 'service answered 409');
    assert.equal(await venues.bank.status(depositId), 'PENDING');
    const { rows } = await service.db.query('SELECT reason, credited_amount AS amount FROM settlement_confirmation_refusals WHERE settlement_id = $1', [settlementId]);
    assert.deepEqual(rows, [{ reason: 'AMOUNT_MISMATCH', amount: given?.creditedAmount }]);
    assert.notEqual(given?.creditedAmount, order.amount);
  });

  test('with a broken signature is refused (401); the deposit stays PENDING', async () => {
    const { reference, order } = await atWithdrawal(360);
    await partner.behaveForSettlement({ reports: 'BAD_SIGNATURE', confirmAfterMs: 50 }, reference);
    const { depositId } = await venues.bank.deposit(order);
    const given = await eventually(() => confirmationAt(reference), (c) => c?.state === 'GAVE_UP');
    assert.equal(given?.lastError, 'service answered 401');
    assert.equal(await venues.bank.status(depositId), 'PENDING');
  });
});

describe('in the pipeline\'s withdraw step', () => {
  async function settlementRow(id: string) {
    const { rows } = await service.db.query('SELECT settlement_status AS status, settlement_amt_received::text AS received FROM settlements WHERE settlement_id = $1', [id]);
    return rows[0] as { status: string; received: string | null };
  }
  async function prefundCredits(id: string) {
    const { rows } = await service.db.query(`SELECT amount::text AS amount, currency FROM ledger_transfers WHERE reference = $1 AND reason = 'SETTLEMENT_OUT'`, [id]);
    return rows;
  }

  test('the prefund is credited at the locked rate only after the partner confirms the agreed amount', async () => {
    const { settlementId, reference, order } = await atWithdrawal(2500.01);
    await partner.behaveForSettlement({ confirmAfterMs: 700 }, reference);
    const pipeline = createPipeline({ db: service.db, clock: { now: () => new Date() }, venues: { ...createSandboxVenues(service.db), ...venues } });
    await pipeline.steps.withdraw(settlementId); // sends the notice
    await pipeline.steps.withdraw(settlementId); // not confirmed yet
    assert.equal((await settlementRow(settlementId)).status, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');
    assert.deepEqual(await prefundCredits(settlementId), []);
    assert.equal((await noticeAt(reference))?.notices, 1);
    await eventually(async () => {
      await pipeline.steps.withdraw(settlementId);
      return (await settlementRow(settlementId)).status;
    }, (s) => s === 'S600_COMPLETED');
    assert.deepEqual(await settlementRow(settlementId), { status: 'S600_COMPLETED', received: `${order.amount}00` });
    assert.deepEqual(await prefundCredits(settlementId), [{ amount: order.amount.replace('.', ''), currency: 'MXN' }]);
  });

  test('a partner that confirmed another amount never completes the settlement', async () => {
    const { settlementId, reference } = await atWithdrawal(2600);
    await partner.behaveForSettlement({ settlementOutcome: 'CONFIRM_DIFFERENT_AMOUNT', confirmAfterMs: 50 }, reference);
    const pipeline = createPipeline({ db: service.db, clock: { now: () => new Date() }, venues: { ...createSandboxVenues(service.db), ...venues } });
    await pipeline.steps.withdraw(settlementId);
    assert.equal((await eventually(() => confirmationAt(reference), (c) => c?.state === 'GAVE_UP'))?.state, 'GAVE_UP');
    await pipeline.steps.withdraw(settlementId);
    assert.equal((await settlementRow(settlementId)).status, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');
    assert.deepEqual(await prefundCredits(settlementId), []);
  });
});

describe('the destination exchange', () => {
  test('swaps at the locked rate without a call; findSwap reads the swap recorded', async () => {
    const { settlementId, rate } = await atWithdrawal(1000);
    const swap = await venues.destinationExchange.swap({ reference: `${settlementId}:SWAP`, asset: 'USDC', assetAmount: '1000', currency: 'MXN', rate });
    assert.equal(swap.proceeds, creditOf('1000', rate));
    assert.deepEqual(await venues.destinationExchange.swap({ reference: `${settlementId}:SWAP`, asset: 'USDC', assetAmount: '1000', currency: 'MXN', rate }), swap);
    const found = await venues.destinationExchange.findSwap(`${settlementId}:SWAP`);
    assert.equal(found.found, true, 'the sandbox pipeline recorded its swap');
    assert.deepEqual(await venues.destinationExchange.findSwap(`${randomUUID()}:SWAP`), { found: false });
  });
});

describe('a restarted partner', () => {
  test('still knows its notices; a partner that is down makes lookups throw', async () => {
    const { reference, order } = await atWithdrawal(370);
    await partner.behaveForSettlement({ settlementOutcome: 'NEVER_CONFIRM' }, reference);
    const deposit = await venues.bank.deposit(order);
    await partner.stop();
    await assert.rejects(venues.bank.findDeposit(reference));
    await connect();
    assert.deepEqual(await venues.bank.findDeposit(reference), { found: true, result: deposit });
  });
});
