// Operator CLI: `npm run admin -- <area> <command> [options]`. Works while the service runs (it
// finds the embedded database through DATA_DIR/runtime.json) and while it does not (it starts the
// embedded database itself for the duration of the command). With DATABASE_URL it uses that.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../platform/config.ts';
import { findRunningEmbedded, startEmbeddedPostgres } from '../platform/database/embedded.ts';
import { migrate } from '../platform/database/migrate.ts';
import { createPool, type Db } from '../platform/database/pool.ts';
import { resolveKeys } from '../platform/keys.ts';
import { workerLogger } from '../platform/jobs.ts';
import { createLogger } from '../platform/logger.ts';
import type { Result } from '../platform/result.ts';
import { createClientsService } from '../auth/clients.ts';
import { createMembersService } from '../members/service.ts';
import { auditorFor } from '../audit/repo.ts';
import { withTransaction } from '../platform/database/transaction.ts';
import { isScope, type Scope } from '../auth/scopes.ts';
import { circuitView } from '../webhooks/circuit.ts';
import { failedDeliveries, findEndpoint, listEndpoints, redeliver, setEndpointStatus, type EndpointRow } from '../webhooks/repo.ts';
import { printTable } from './output.ts';
import os from 'node:os';
import { systemClock } from '../platform/clock.ts';
import { listReviews, type Resolution, type ReviewRow } from '../payouts/review-repo.ts';
import { resolveReview } from '../payouts/review.ts';

const RESOLUTIONS: readonly Resolution[] = ['PAID', 'NOT_PAID', 'RETRY', 'ACKNOWLEDGED'];

function reviewView(r: ReviewRow): object {
  return {
    reviewId: r.reviewId, payoutId: r.payoutId, reason: r.reason, detail: r.detail, openedAt: r.openedAt,
    resolution: r.resolution, resolvedBy: r.resolvedBy, resolvedAt: r.resolvedAt, note: r.note,
  };
}
import { executePartners, PARTNERS_COMMANDS, PARTNERS_LIST_COMMANDS, PARTNERS_USAGE, PartnersCommandError, PartnersUsageError } from './partners.ts';
import type { Config } from '../platform/config.ts';
import { CommandError, UsageError } from './errors.ts';
import { executeProviders, PROVIDERS_COMMANDS, PROVIDERS_LIST_COMMANDS, PROVIDERS_USAGE } from './providers.ts';
import { BACKUP_COMMANDS, BACKUP_USAGE, executeBackup } from './backup.ts';
import { executePrefund, PREFUND_COMMANDS, PREFUND_LIST_COMMANDS, PREFUND_USAGE } from './prefund.ts';
import { executeLedger, LEDGER_COMMANDS, LEDGER_USAGE } from './ledger.ts';
import { CHAIN_COMMANDS, CHAIN_USAGE, executeChainReconcile } from './chain.ts';
import { executeSettlements, SETTLEMENTS_COMMANDS, SETTLEMENTS_LIST_COMMANDS, SETTLEMENTS_USAGE } from './settlements.ts';

export const USAGE = `Usage: npm run admin -- <command> [options] [--json]

  members list [--kind source|destination]
  members create --id ID --name NAME --kind source|destination --country CC --currencies CCY[,CCY] [--actor NAME]
  corridors list [--source MEMBER_ID]
  corridors set --source MEMBER_ID --destination MEMBER_ID [--currency CCY]
                [--active true|false] [--max-settlement-amt AMOUNT] [--actor NAME]
  clients create --member MEMBER_ID [--scopes "payouts settlements member"] [--name NAME] [--client-id ID]
  clients list [--member MEMBER_ID]
  clients rotate CLIENT_ID
  clients revoke CLIENT_ID
  webhooks endpoints --member MEMBER_ID
  webhooks failed --member MEMBER_ID [--limit N]
  webhooks redeliver DELIVERY_ID
  webhooks enable ENDPOINT_ID
  payouts reviews [--all] [--limit N]
  payouts resolve REVIEW_ID --as PAID|NOT_PAID|RETRY|ACKNOWLEDGED --note TEXT [--actor NAME]
${SETTLEMENTS_USAGE}
${PARTNERS_USAGE}
${PROVIDERS_USAGE}
${PREFUND_USAGE}
${BACKUP_USAGE}
${LEDGER_USAGE}
${CHAIN_USAGE}

Payout reviews are payouts the service parked instead of guessing (a partner that could not be
asked, a cancellation never settled, an answer contradicting the payout). Resolve one with what
was established with the partner: PAID, NOT_PAID (never paid, or its money came back), RETRY
(hand it back to the automatic steps) or ACKNOWLEDGED (nothing to change).
Settlement reviews are settlements parked because a venue could not say whether a step's money
moved. Resolve one with what was established with the venue: MOVED (the pipeline goes on from
that step) or NOT_MOVED (the settlement fails and the source funds are returned).
The client secret is printed once, by create and rotate; only its keyed hash is stored.`;

const COMMANDS = new Set([
  'members list', 'members create', 'corridors list', 'corridors set',
  'clients create', 'clients list', 'clients rotate', 'clients revoke',
  'webhooks endpoints', 'webhooks failed', 'webhooks redeliver', 'webhooks enable', ...PARTNERS_COMMANDS,
  'payouts reviews', 'payouts resolve', ...SETTLEMENTS_COMMANDS, ...PROVIDERS_COMMANDS, ...PREFUND_COMMANDS, ...BACKUP_COMMANDS, ...LEDGER_COMMANDS, ...CHAIN_COMMANDS,
]);

/** Commands that answer a list: with --json they print an array even when it has one row. */
const LIST_COMMANDS = new Set(['members list', 'corridors list', 'clients list', 'webhooks endpoints', 'webhooks failed', ...PARTNERS_LIST_COMMANDS, 'payouts reviews', ...SETTLEMENTS_LIST_COMMANDS, ...PROVIDERS_LIST_COMMANDS, ...PREFUND_LIST_COMMANDS]);


const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  kind: { type: 'string' },
  id: { type: 'string' },
  name: { type: 'string' },
  country: { type: 'string' },
  currencies: { type: 'string' },
  source: { type: 'string' },
  destination: { type: 'string' },
  currency: { type: 'string' },
  active: { type: 'string' },
  'max-settlement-amt': { type: 'string' },
  member: { type: 'string' },
  scopes: { type: 'string' },
  'client-id': { type: 'string' },
  limit: { type: 'string' },
  all: { type: 'boolean' },
  as: { type: 'string' },
  outcome: { type: 'string' },
  note: { type: 'string' },
  'base-url': { type: 'string' },
  enabled: { type: 'string' },
  'key-id': { type: 'string' },
  'public-key': { type: 'string' },
  'public-key-file': { type: 'string' },
  actor: { type: 'string' },
  file: { type: 'string' },
  amount: { type: 'string' },
  reason: { type: 'string' },
  reference: { type: 'string' },
  ledger: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function parseScopes(text: string | undefined): Scope[] | undefined {
  if (text === undefined) return undefined;
  const scopes = text.split(/[\s,]+/).filter(Boolean);
  const bad = scopes.find((s) => !isScope(s));
  if (bad !== undefined) throw new UsageError(`unknown scope "${bad}" (payouts, settlements, member)`);
  return scopes as Scope[];
}

function parseBoolean(text: string | undefined): boolean | undefined {
  if (text === undefined) return undefined;
  if (text !== 'true' && text !== 'false') throw new UsageError('--active takes true or false');
  return text === 'true';
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return 50;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 500) throw new UsageError('--limit is a whole number from 1 to 500');
  return Number(text);
}

/** What an operator sees of an endpoint: never its secret; its circuit (CLOSED, OPEN until a time, HALF_OPEN). */
function endpointView(e: EndpointRow): object {
  const circuit = circuitView(e, new Date());
  return {
    webhookEndpointId: e.webhookEndpointId, url: e.url, eventTypes: e.eventTypes, status: e.status, statusReason: e.statusReason, creationTime: e.creationTime,
    circuit: circuit.state, consecutiveFailures: circuit.consecutiveFailures, circuitOpenUntil: circuit.openUntil,
  };
}

const REDELIVER_REFUSALS = {
  NOT_FOUND: 'NOT_FOUND: no webhook delivery has this id',
  NOT_FAILED: 'NOT_FAILED: only a FAILED delivery can be redelivered',
  ENDPOINT_NOT_ENABLED: 'ENDPOINT_NOT_ENABLED: the delivery\'s endpoint is not enabled (run "webhooks enable ENDPOINT_ID" first)',
} as const;

function unwrap<T>(result: Result<T, string>): T {
  if (result.ok) return result.value;
  throw new CommandError(`${result.error}${result.detail ? `: ${result.detail}` : ''}`);
}

/** Runs one command against the database and returns what to print. */
async function execute(db: Db, config: Config, clientSecretKey: Buffer, words: string[], values: Values): Promise<{ rows: object[]; note?: string }> {
  if (words[0] === 'partners') return executePartners(db, config, words.slice(0, 2).join(' '), words[2], values);
  if (words[0] === 'providers') return executeProviders(db, words.slice(0, 2).join(' '), words[2], values);
  if (words[0] === 'prefund') return executePrefund(db, words.slice(0, 2).join(' '), values);
  const actor = values.actor ?? os.userInfo().username;
  if (SETTLEMENTS_COMMANDS.includes(words.slice(0, 2).join(' '))) {
    return executeSettlements(db, words.slice(0, 2).join(' '), words.slice(2), {
      actor, all: values.all === true, limit: parseLimit(values.limit), ...(values.outcome ? { outcome: values.outcome } : {}), ...(values.note ? { note: values.note } : {}),
    });
  }
  // Operators' member and corridor changes are audited in the transaction that makes them.
  const audited = <T>(work: (service: ReturnType<typeof createMembersService>) => Promise<T>) =>
    withTransaction(db, (client) => work(createMembersService({ db: client, audit: auditorFor(actor) })));
  const members = createMembersService({ db });
  const clients = createClientsService({ db, clientSecretKey });
  const command = words.slice(0, 2).join(' ');
  const argument = words[2];
  switch (command) {
    case 'members list': {
      const kind = values.kind?.toUpperCase();
      if (kind !== undefined && kind !== 'SOURCE' && kind !== 'DESTINATION') throw new UsageError('--kind is source or destination');
      return { rows: await members.list(kind) };
    }
    case 'members create':
      return {
        rows: [unwrap(await audited((m) => m.create({
          memberId: required(values, 'id'),
          name: required(values, 'name'),
          kind: required(values, 'kind').toUpperCase() as 'SOURCE',
          countryCode: required(values, 'country'),
          currencies: required(values, 'currencies').split(','),
        })))],
      };
    case 'corridors list':
      return { rows: await members.listCorridors(values.source) };
    case 'corridors set': {
      const active = parseBoolean(values.active);
      return {
        rows: [unwrap(await audited((m) => m.setCorridor({
          sourceMemberId: required(values, 'source'),
          destinationMemberId: required(values, 'destination'),
          ...(values.currency === undefined ? {} : { destinationCcy: values.currency }),
          ...(active === undefined ? {} : { active }),
          ...(values['max-settlement-amt'] === undefined ? {} : { maxSettlementAmt: values['max-settlement-amt'] }),
        })))],
      };
    }
    case 'clients create': {
      const scopes = parseScopes(values.scopes);
      const { client, secret } = unwrap(await clients.create({
        memberId: required(values, 'member'),
        ...(values.name === undefined ? {} : { name: values.name }),
        ...(values['client-id'] === undefined ? {} : { clientId: values['client-id'] }),
        ...(scopes === undefined ? {} : { scopes }),
      }));
      return { rows: [{ ...client, clientSecret: secret }], note: 'Store the secret now: it is not shown again.' };
    }
    case 'clients list':
      return { rows: await clients.list(values.member) };
    case 'clients rotate': {
      if (!argument) throw new UsageError('clients rotate needs a CLIENT_ID');
      const { client, secret } = unwrap(await clients.rotate(argument));
      return { rows: [{ ...client, clientSecret: secret }], note: 'The old secret no longer works. Store the new one now.' };
    }
    case 'clients revoke': {
      if (!argument) throw new UsageError('clients revoke needs a CLIENT_ID');
      return { rows: [unwrap(await clients.revoke(argument))] };
    }
    case 'webhooks endpoints':
      return { rows: (await listEndpoints(db, required(values, 'member'))).map(endpointView) };
    case 'webhooks failed': {
      const memberId = required(values, 'member');
      const limit = parseLimit(values.limit);
      const failed = await failedDeliveries(db, memberId, limit);
      return {
        rows: failed.map((d) => ({
          deliveryId: d.deliveryId, webhookEndpointId: d.webhookEndpointId, eventId: d.eventId, type: d.type,
          attempts: d.attempts, lastError: d.lastError, completedAt: d.completedAt,
        })),
      };
    }
    case 'webhooks redeliver': {
      if (!argument) throw new UsageError('webhooks redeliver needs a DELIVERY_ID');
      const result = await redeliver(db, argument);
      if (result !== 'REQUEUED') throw new CommandError(REDELIVER_REFUSALS[result]);
      return { rows: [{ deliveryId: argument, result }], note: `Delivery ${argument} requeued: its next attempt is queued now (the retry schedule goes on from its attempt count).` };
    }
    case 'webhooks enable': {
      if (!argument) throw new UsageError('webhooks enable needs an ENDPOINT_ID');
      if (!(await setEndpointStatus(db, argument, 'ENABLED', null))) throw new CommandError('NOT_FOUND: no webhook endpoint has this id, or it is deleted');
      const endpoint = await findEndpoint(db, argument);
      if (!endpoint) throw new CommandError('NOT_FOUND: no webhook endpoint has this id, or it is deleted');
      return { rows: [endpointView(endpoint)], note: 'Enabled. Deliveries that failed meanwhile are not resent: use "webhooks redeliver DELIVERY_ID".' };
    }
    case 'payouts reviews':
      return { rows: (await listReviews(db, { all: values.all === true, limit: parseLimit(values.limit) })).map(reviewView) };
    case 'payouts resolve': {
      if (!argument) throw new UsageError('payouts resolve needs a REVIEW_ID');
      const resolution = required(values, 'as').toUpperCase();
      if (!RESOLUTIONS.includes(resolution as Resolution)) throw new UsageError(`--as is one of ${RESOLUTIONS.join(', ')}`);
      const result = await resolveReview({ db, clock: systemClock }, argument, resolution as Resolution, actor, required(values, 'note'));
      if (!result.ok) throw new CommandError(`${result.error}: ${result.detail}`);
      return { rows: [{ ...reviewView(result.review), payoutStatus: result.payoutStatus }] };
    }
    default:
      throw new UsageError(`unknown command "${words.join(' ')}"`);
  }
}

async function runBackup(config: Config, positionals: string[], values: Values): Promise<number> {
  try {
    const row = await executeBackup(config, positionals, values.file);
    if (values.json) process.stdout.write(`${JSON.stringify(row, null, 2)}\n`);
    else printTable([row]);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof CommandError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (!COMMANDS.has(positionals.slice(0, 2).join(' '))) {
    process.stderr.write(`unknown command "${positionals.join(' ')}"\n\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  // backups copy the embedded database's files: they need it stopped, not connected
  if (positionals[0] === 'backup') return runBackup(config, positionals, values);
  const log = createLogger('silent');
  let stopEmbedded: (() => Promise<void>) | undefined;
  let url = config.databaseUrl ?? (await findRunningEmbedded(config.dataDir));
  if (url === undefined) {
    const embedded = await startEmbeddedPostgres(config.dataDir, { info: () => undefined, warn: (m) => process.stderr.write(`${m}\n`) });
    url = embedded.url;
    stopEmbedded = () => embedded.stop();
  }
  const db = createPool({ url, max: 2, applicationName: 'admin-cli' });
  try {
    await migrate(db, workerLogger(log));
    if (positionals.slice(0, 2).join(' ') === 'ledger check') {
      const { rows, note, differences, report } = await executeLedger(db);
      if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else {
        printTable(rows);
        process.stdout.write(`\n${note}\n`);
      }
      return differences === 0 ? 0 : 1;
    }
    if (positionals.slice(0, 2).join(' ') === 'chain reconcile') {
      const { report, note } = await executeChainReconcile(db, values.ledger);
      if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else {
        printTable([report]);
        process.stdout.write(`\n${note}\n`);
      }
      return report.matches ? 0 : 1;
    }
    const keys = await resolveKeys(config);
    const { rows, note } = await execute(db, config, keys.clientSecretKey, positionals, values);
    if (values.json) process.stdout.write(`${JSON.stringify(rows.length === 1 && !LIST_COMMANDS.has(positionals.slice(0, 2).join(' ')) ? rows[0] : rows, null, 2)}\n`);
    else {
      printTable(rows);
      if (note) process.stdout.write(`\n${note}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof PartnersUsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof CommandError || error instanceof PartnersCommandError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await db.end();
    await stopEmbedded?.();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String((error as Error).stack ?? error)}\n`);
  process.exitCode = error instanceof ConfigError ? 78 : 1;
}
