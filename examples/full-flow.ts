// A payout and a settlement from start to finish with @settlement-payout/client, against a running
// sandbox:
//
//   npm start                                     # the sandbox on http://127.0.0.1:8080
//   BASE_URL=http://127.0.0.1:8080 node examples/full-flow.ts
//
// It uses the sandbox's demo client (demo-source-1 / demo-secret-1) and prints every step. It runs
// the client from this repository's sources; an application installs the package and writes
// `import { createClient } from '@settlement-payout/client'` (ESM) or `require(...)` (CommonJS).
import { randomUUID } from 'node:crypto';
import { ApiError, createClient, type Settlement } from '../client/src/index.ts';

export interface ExampleOptions {
  baseUrl: string;
  clientId?: string;
  clientSecret?: string;
  /** How long to wait for the settlement to complete (default 60 s). */
  settlementTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface ExampleResult {
  payoutId: string;
  payoutStatus: string;
  settlementId: string;
  settlementStatus: string;
  events: number;
}

export async function main(options: ExampleOptions): Promise<ExampleResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const client = createClient({
    baseUrl: options.baseUrl,
    clientId: options.clientId ?? 'demo-source-1',
    clientSecret: options.clientSecret ?? 'demo-secret-1',
  });
  log(`Sandbox: ${options.baseUrl}`);

  // 1. A payout to a Mexican bank account (SPEI): create, process, read back, find in the list.
  const sourceMemberPayoutId = `example-${randomUUID()}`;
  const { payout: created, replayed } = await client.payouts.create({
    sourceMemberPayoutId,
    payoutProviderId: 'MX_SPEI',
    destinationCcy: 'MXN',
    payoutAmt: 1500.5,
    sender: { firstName: 'John', lastName: 'Smith', countryCode: 'US', dateOfBirth: '1980-05-17' },
    beneficiary: { firstName: 'Maria', lastName: 'Lopez', accountNumber: '032180000118359719' },
  });
  log(`payout ${created.payoutId} ${replayed ? 'replayed' : 'created'}: ${created.payoutStatus}, ${created.payoutAmt} ${created.destinationCcy} + fee ${created.transferFee}`);

  const processed = await client.payouts.process(created.payoutId);
  log(`payout ${created.payoutId} processed: ${processed.payoutStatus}`);

  const payout = await client.payouts.get(created.payoutId);
  log(`payout ${payout.payoutId} is ${payout.payoutStatus}`);

  for await (const listed of client.payouts.list({ sourceMemberPayoutId })) {
    log(`listed: payout ${listed.payoutId} (${listed.sourceMemberPayoutId}) ${listed.payoutStatus}`);
  }

  // 2. A settlement into the Mexican partner's prefund: corridor, rate lock, IMMEDIATE settlement.
  const context = await client.settlements.context();
  const corridor = context.corridors.find((c) => c.active && c.destinationMemberId === 'PARTNER_MX');
  if (!corridor) throw new Error('no active corridor to PARTNER_MX');
  log(`corridor ${context.sourceCcy} -> ${corridor.destinationCcy} (${corridor.destinationMemberId}): up to ${corridor.maxSettlementAmt} ${context.sourceCcy}, ${corridor.inFlightAmt} in flight`);

  const rate = await client.rates.lock({ destinationMemberId: corridor.destinationMemberId });
  log(`rate ${rate.rateId} locked: ${rate.rate} ${rate.destinationCcy} per ${rate.sourceCcy}, until ${rate.expiryTime}`);

  const idempotencyKey = `example-settlement-${randomUUID()}`;
  let { settlement }: { settlement: Settlement } = await client.settlements.create(
    { destinationMemberId: corridor.destinationMemberId, settlementAmt: 1000, rateId: rate.rateId, executionInterval: 'IMMEDIATE', notes: 'client example' },
    { idempotencyKey },
  );
  log(`settlement ${settlement.settlementId} created (Idempotency-Key ${idempotencyKey}): ${settlement.settlementStatus}`);

  const deadline = Date.now() + (options.settlementTimeoutMs ?? 60_000);
  let status = settlement.settlementStatus;
  while (!['S500_TERMINATED', 'S600_COMPLETED', 'S700_FAILED'].includes(settlement.settlementStatus)) {
    if (Date.now() > deadline) throw new Error(`settlement ${settlement.settlementId} still ${settlement.settlementStatus}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    settlement = await client.settlements.get(settlement.settlementId);
    if (settlement.settlementStatus !== status) {
      status = settlement.settlementStatus;
      log(`settlement ${settlement.settlementId}: ${status}`);
    }
  }
  if (settlement.settlementStatus !== 'S600_COMPLETED') throw new Error(`settlement ended ${settlement.settlementStatus}`);
  log(`settlement ${settlement.settlementId} completed: ${settlement.settlementAmtReceived} ${settlement.destinationCcy} received`);

  // the settlements created since just before this one, page by page
  const since = new Date(Date.parse(settlement.creationTime) - 1).toISOString();
  for await (const listed of client.settlements.list({ createdAfter: since, size: 20 })) {
    log(`listed: settlement ${listed.settlementId} ${listed.settlementStatus}, ${listed.settlementAmt} ${listed.sourceCcy}`);
  }

  // 3. What happened, as the events list (and the webhooks) tell it.
  let events = 0;
  for await (const event of client.events.list()) {
    const id = event.data['payoutId'] ?? event.data['settlementId'];
    if (id !== created.payoutId && id !== settlement.settlementId) continue;
    events++;
    log(`event ${event.timestamp} ${event.type}: ${String(event.data['previousStatus'] ?? '-')} -> ${String(event.data['payoutStatus'] ?? event.data['settlementStatus'])}`);
  }

  log('done');
  return { payoutId: payout.payoutId, payoutStatus: payout.payoutStatus, settlementId: settlement.settlementId, settlementStatus: settlement.settlementStatus, events };
}

if (import.meta.main) {
  try {
    await main({ baseUrl: process.env['BASE_URL'] ?? 'http://127.0.0.1:8080' });
  } catch (error) {
    if (error instanceof ApiError) {
      console.error(`API error ${error.status} ${error.code}: ${error.message} (${error.detail}) [request ${error.requestId}]`);
    } else {
      console.error(error);
    }
    process.exitCode = 1;
  }
}
