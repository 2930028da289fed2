// The fault campaign of `npm run chaos`, short: two API and two worker processes on one
// PostgreSQL under mixed load, processes SIGKILLed and restarted, the database stopped
// immediately once. Afterwards the ledger check passes, every payout and settlement is terminal
// or explained, no webhook event is lost, and no 5xx other than the outage's 503s was answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCampaign, formatReport } from '../../scripts/chaos.ts';
import { webhookLosses } from '../../scripts/chaos-checks.ts';

const CAMPAIGN_SECONDS = 35;

test(`a ${CAMPAIGN_SECONDS} s fault campaign: kills, restarts and a database stop leave the ledger, payouts, settlements and webhooks whole`, { timeout: 600_000 }, async (t) => {
  let lostWithoutReceiver: { events: number; lost: string[] } | undefined;
  const report = await runCampaign({
    seconds: CAMPAIGN_SECONDS,
    postgres: 'embedded',
    log: (line) => t.diagnostic(line),
    // the webhook check must see a loss: had the receiver got nothing, every event would be lost
    inspect: async (db, { endpointId }) => {
      lostWithoutReceiver = await webhookLosses(db, endpointId, new Set());
    },
  });
  for (const line of formatReport(report).split('\n')) t.diagnostic(line);
  for (const check of report.checks) assert.ok(check.ok, `${check.name}: ${check.detail}`);
  assert.equal(report.ok, true);
  assert.equal(report.databaseStops, 1);
  assert.ok(report.kills >= 3, `at least three processes killed (${report.kills})`);
  assert.equal(report.restarts, report.kills, 'every killed process started again');
  assert.equal(report.load.unexpected5xx, 0);
  assert.ok((report.load.byStatus['201'] ?? 0) > 50, 'payouts and settlements were created throughout');
  assert.ok(lostWithoutReceiver !== undefined && lostWithoutReceiver.events > 0);
  assert.equal(lostWithoutReceiver.lost.length, lostWithoutReceiver.events);
});
