// Seeds the sandbox world of world.ts in steps, each applied once (recorded in
// sandbox_seed_steps), all in one transaction under the boot lock so that two processes booting
// together seed once. Production never calls this.
import { randomUUID } from 'node:crypto';
import { inTransaction, type Db, type DbClient } from '../platform/database/pool.ts';
import { withBootLock } from '../platform/database/migrate.ts';
import * as members from '../members/repo.ts';
import { createClientsService } from '../auth/clients.ts';
import { upsertProvider } from '../providers/repo.ts';
import { SANDBOX_PROVIDERS } from '../providers/catalogue.ts';
import { fundingAccount, prefundAccount } from '../ledger/accounts.ts';
import { createTransfers } from '../ledger/service.ts';
import { parseAmount } from '../platform/money.ts';
import { CORRIDORS, DEMO_CLIENTS, DEMO_PREFUND_AMOUNT, DEMO_SOURCE_MEMBERS, DESTINATION_MEMBERS, SANDBOX_WALLET_ADDRESS } from './world.ts';

export interface SeedOptions {
  db: Db;
  clientSecretKey: Buffer;
  /** SANDBOX_CLIENT_SECRET_1 and _2: override the demo secrets. */
  secretOverrides: [string | undefined, string | undefined];
}

interface Step {
  name: string;
  run(client: DbClient, options: SeedOptions): Promise<void>;
}

const STEPS: Step[] = [
  {
    name: 'world',
    async run(client, options) {
      for (const member of [...DEMO_SOURCE_MEMBERS, ...DESTINATION_MEMBERS]) await members.insertMember(client, member);
      for (const corridor of CORRIDORS) await members.upsertCorridor(client, corridor);
      const clients = createClientsService({ db: client, clientSecretKey: options.clientSecretKey });
      for (const [index, demo] of DEMO_CLIENTS.entries()) {
        const secret = options.secretOverrides[index] ?? demo.defaultSecret;
        await clients.create({ memberId: demo.memberId, clientId: demo.clientId, scopes: demo.scopes, secret });
      }
    },
  },
  {
    name: 'providers',
    async run(client) {
      for (const provider of SANDBOX_PROVIDERS) await upsertProvider(client, provider);
    },
  },
  {
    name: 'prefund',
    async run(client) {
      const groups = DEMO_SOURCE_MEMBERS.flatMap((source) =>
        DESTINATION_MEMBERS.flatMap((destination) =>
          destination.currencies.map((currency) => {
            const amount = parseAmount(DEMO_PREFUND_AMOUNT, currency);
            if (!amount.ok) throw new Error(`bad seed amount for ${currency}`);
            return [{
              transferId: randomUUID(),
              debit: fundingAccount(destination.memberId, currency),
              credit: prefundAccount(source.memberId, destination.memberId, currency),
              amount: amount.minor,
              reason: 'SANDBOX_SEED',
              reference: `sandbox-seed:${source.memberId}`,
            }];
          }),
        ),
      );
      await createTransfers(client, groups, { twoPhase: false });
    },
  },
  {
    // settlements carry their stablecoin to the destination member's wallet: one fixed sandbox address
    name: 'wallets',
    async run(client) {
      await members.seedWalletAddresses(client, DESTINATION_MEMBERS.map((m) => m.memberId), SANDBOX_WALLET_ADDRESS);
    },
  },
];

/** Runs the steps not yet applied; returns their names. */
export async function seedSandbox(options: SeedOptions): Promise<{ applied: string[] }> {
  return withBootLock(options.db, (client) =>
    inTransaction(client, async () => {
      const { rows } = await client.query<{ step: string }>('SELECT step FROM sandbox_seed_steps');
      const done = new Set(rows.map((r) => r.step));
      // a database seeded before steps were recorded already holds the world
      if (!done.has('world') && (await members.countMembers(client)) > 0) done.add('world');
      const applied: string[] = [];
      for (const step of STEPS.filter((s) => !done.has(s.name))) {
        await step.run(client, options);
        applied.push(step.name);
      }
      await client.query('INSERT INTO sandbox_seed_steps (step) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [
        [...applied, ...(done.has('world') ? ['world'] : [])],
      ]);
      await applyDemoSecretOverrides(client, options);
      return { applied };
    }),
  );
}

/** SANDBOX_CLIENT_SECRET_n set after the world was seeded: the demo client takes that secret. */
async function applyDemoSecretOverrides(client: DbClient, options: SeedOptions): Promise<void> {
  const clients = createClientsService({ db: client, clientSecretKey: options.clientSecretKey });
  for (const [index, demo] of DEMO_CLIENTS.entries()) {
    const override = options.secretOverrides[index];
    if (override !== undefined && !(await clients.withSecrets([override])).includes(demo.clientId)) {
      await clients.rotate(demo.clientId, override);
    }
  }
}
