// Settlements parked for review, and their resolution by an operator through the admin CLI
// (`npm run admin -- settlements reviews | resolve`): MOVED goes on from the step in question,
// NOT_MOVED fails the settlement and returns the funds; both audited and published. Also the
// destination member's wallet address (`members set-wallet`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, tempDataDir, type TestService } from '../support/service.ts';
import { adminCli } from '../support/admin.ts';
import { token } from '../support/http.ts';
import { queuedJob, settlementApi, settlementControls, settlementState, settlementTransfers } from '../support/settlements.ts';
import { createPipeline, type Pipeline } from '../../src/settlements/pipeline.ts';
import { createSandboxVenues } from '../../src/settlements/sandbox-venues.ts';
import { injectFault } from '../../src/settlements/sandbox-venue-repo.ts';
import { DOUBT_CHECK_DELAYS_MS } from '../../src/settlements/doubt.ts';
import { auditFor } from '../../src/audit/repo.ts';
import { checkLedgerFully, differenceCount } from '../../src/ledger/check.ts';

let dataDir: string;
let service: TestService;
let api: ReturnType<typeof settlementApi>;
let controls: ReturnType<typeof settlementControls>;
let pipeline: Pipeline;
before(async () => {
  dataDir = await tempDataDir();
  service = await startTestService({ DATA_DIR: dataDir, WORKERS: '0' });
  const auth = await token(service.url, { scope: 'settlements' });
  api = settlementApi(service.url, auth);
  controls = settlementControls(service.url, auth);
  pipeline = createPipeline({ db: service.db, clock: { now: () => new Date() }, venues: createSandboxVenues(service.db) });
});
after(async () => {
  await service.stop();
});

const { adminJson, refused } = adminCli(() => dataDir);
const LAST_CHECK = DOUBT_CHECK_DELAYS_MS.length - 1;
const legs = async (id: string) => (await settlementTransfers(service.db, id)).map((t) => `${t.reason} ${t.debit}->${t.credit}`);

async function reviewEvents(id: string) {
  const { rows } = await service.db.query(
    `SELECT type, data->>'step' AS step, data->>'outcome' AS outcome FROM events WHERE resource_id = $1 AND type LIKE 'settlement.review%' ORDER BY sequence`, [id]);
  return rows.map((r) => `${r.type} ${r.step}${r.outcome ? ` ${r.outcome}` : ''}`);
}

/** A settlement parked at the step: the venue timed out and could not be asked. Answers its id and review id. */
async function parkedAt(step: 'BUY' | 'TRANSFER' | 'WITHDRAWAL'): Promise<{ id: string; reviewId: string }> {
  const id = String((await api.settle('PARTNER_MX', { settlementAmt: 55.5 }))['settlementId']);
  if (step === 'BUY') {
    await injectFault(service.db, `${id}:BUY`, 'buy', 'TIMEOUT_AFTER');
    await injectFault(service.db, `${id}:BUY`, 'findBuy', 'TIMEOUT');
    await pipeline.steps.buy(id);
  } else if (step === 'TRANSFER') {
    await controls.advance(id);
    await pipeline.steps.transfer(id);
    await injectFault(service.db, `${id}:TRANSFER`, 'status', 'TIMEOUT', 2);
    await pipeline.steps.transfer(id);
  } else {
    await controls.advanceTo(id, 'S400_FIAT_WITHDRAWAL_IN_PROGRESS');
    await injectFault(service.db, `${id}:WITHDRAWAL`, 'deposit', 'TIMEOUT_AFTER');
    await injectFault(service.db, `${id}:WITHDRAWAL`, 'findDeposit', 'TIMEOUT');
    await pipeline.steps.withdraw(id);
  }
  await pipeline.resolveDoubt(id, step, LAST_CHECK);
  const { rows } = await service.db.query('SELECT review_id FROM settlement_reviews WHERE settlement_id = $1 AND resolved_at IS NULL', [id]);
  assert.equal(rows.length, 1, `${id} parked`);
  return { id, reviewId: rows[0].review_id };
}

const resolve = (reviewId: string, outcome: string) =>
  adminJson<Record<string, unknown>>(['settlements', 'resolve', reviewId, '--outcome', outcome, '--note', 'checked with the venue', '--actor', 'ops-anna']);

describe('settlements reviews and resolve', () => {
  test('reviews lists the open ones; MOVED on a transfer: the stablecoin is delivered and the settlement goes on to completion', async () => {
    const { id, reviewId } = await parkedAt('TRANSFER');
    const listed = await adminJson<Array<Record<string, unknown>>>(['settlements', 'reviews']);
    assert.deepEqual(listed.filter((r) => r['settlementId'] === id).map((r) => [r['reviewId'], r['step'], r['reason']]), [[reviewId, 'TRANSFER', 'VENUE_UNANSWERED']]);
    const resolved = await resolve(reviewId, 'MOVED');
    assert.deepEqual([resolved['outcome'], resolved['resolvedBy'], resolved['settlementStatus']], ['MOVED', 'ops-anna', 'S300_IN_PROGRESS']);
    assert.equal((await legs(id)).at(-1), 'SETTLEMENT_DELIVERED IN_TRANSIT->LIQUIDITY');
    assert.equal((await queuedJob(service.db, id))?.task, 'settlement.swap');
    assert.ok(!(await adminJson<Array<Record<string, unknown>>>(['settlements', 'reviews'])).some((r) => r['reviewId'] === reviewId), 'no longer open');
    await controls.advanceTo(id, 'S600_COMPLETED');
    assert.deepEqual(await reviewEvents(id), ['settlement.review_opened TRANSFER', 'settlement.review_resolved TRANSFER MOVED']);
    const audit = await auditFor(service.db, `settlement:${id}`);
    assert.deepEqual(audit.map((a) => [a.actor, a.action, (a.after as Record<string, unknown>)['outcome']]), [['ops-anna', 'settlements.resolve', 'MOVED']]);
    assert.equal(differenceCount(await checkLedgerFully(service.db)), 0);
  });

  test('NOT_MOVED on a deposit: S700, the source funds returned (the delivered stablecoin stays in the pool), audited, published', async () => {
    const { id, reviewId } = await parkedAt('WITHDRAWAL');
    const resolved = await resolve(reviewId, 'NOT_MOVED');
    assert.equal(resolved['settlementStatus'], 'S700_FAILED');
    assert.deepEqual(await settlementState(service.db, id), {
      status: 'S700_FAILED', failureReason: `withdrawal: did not move (established by review ${reviewId})`, step: null, reason: null,
    });
    assert.deepEqual((await legs(id)).slice(4), ['SETTLEMENT_REFUND LIQUIDITY->SOURCE_FUNDS']);
    assert.deepEqual(await reviewEvents(id), ['settlement.review_opened WITHDRAWAL', 'settlement.review_resolved WITHDRAWAL NOT_MOVED']);
    assert.equal((await auditFor(service.db, `settlement:${id}`)).length, 1);
    assert.equal(differenceCount(await checkLedgerFully(service.db)), 0);
  });

  test('MOVED on a buy: the exchange is asked again by the same reference and the pipeline goes on', async () => {
    const { id, reviewId } = await parkedAt('BUY');
    await resolve(reviewId, 'MOVED');
    assert.deepEqual(await queuedJob(service.db, id), { task: 'settlement.buy', payload: { settlementId: id } });
    await pipeline.steps.buy(id);
    assert.equal((await settlementState(service.db, id)).status, 'S300_IN_PROGRESS');
    const { rows } = await service.db.query(`SELECT count(*)::int AS n FROM sandbox_venue_operations WHERE reference = $1`, [`${id}:BUY`]);
    assert.equal(rows[0].n, 1, 'one order');
  });

  test('refusals: resolved already, unknown or malformed review, bad outcome, no note', async () => {
    const { reviewId } = await parkedAt('BUY');
    await refused(['settlements', 'resolve', reviewId, '--outcome', 'MAYBE', '--note', 'x'], 2, /--outcome is one of MOVED, NOT_MOVED/);
    await refused(['settlements', 'resolve', reviewId, '--outcome', 'MOVED'], 2, /--note is required/);
    await refused(['settlements', 'resolve', '6f1d2c3b-1a2b-4c3d-8e9f-0a1b2c3d4e5f', '--outcome', 'MOVED', '--note', 'x'], 1, /NOT_FOUND/);
    await refused(['settlements', 'resolve', 'nope', '--outcome', 'MOVED', '--note', 'x'], 1, /NOT_FOUND/);
    await resolve(reviewId, 'NOT_MOVED');
    await refused(['settlements', 'resolve', reviewId, '--outcome', 'MOVED', '--note', 'x'], 1, /ALREADY_RESOLVED/);
  });
});

describe('members set-wallet', () => {
  test('a checksummed address is set and audited; a settlement then sends to it', async () => {
    const address = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
    const set = await adminJson(['members', 'set-wallet', 'PARTNER_PH', address, '--actor', 'ops-anna']);
    assert.deepEqual(set, { memberId: 'PARTNER_PH', walletAddress: address, previousWalletAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
    const audit = await auditFor(service.db, 'member:PARTNER_PH');
    assert.deepEqual(audit.map((a) => [a.actor, a.action, a.before, a.after]), [
      ['ops-anna', 'members.set-wallet', { walletAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }, { walletAddress: address }],
    ]);
    const id = String((await api.settle('PARTNER_PH', { settlementAmt: 20 }))['settlementId']);
    await controls.advance(id);
    await controls.advance(id);
    const { rows } = await service.db.query(`SELECT result->>'toAddress' AS to FROM sandbox_venue_operations WHERE reference = $1`, [`${id}:TRANSFER`]);
    assert.equal(rows[0].to, address);
  });

  test('refused: not checksummed, not an address, not a destination member', async () => {
    await refused(['members', 'set-wallet', 'PARTNER_PH', '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359'], 2, /EIP-55 checksum/);
    await refused(['members', 'set-wallet', 'PARTNER_PH', '0x1234'], 2, /not an EVM address/);
    await refused(['members', 'set-wallet', 'NOBODY', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'], 1, /NOT_FOUND/);
    await refused(['members', 'set-wallet', 'DEMO_SOURCE_1', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'], 1, /NOT_FOUND/);
    await refused(['members', 'set-wallet', 'PARTNER_PH'], 2, /needs a MEMBER_ID and an address/);
  });
});
