// Seeds an empty sandbox database with the world of world.ts, once, in one transaction, under
// the boot lock (so two processes booting together seed once). Production never calls this.
import type { Db } from '../platform/database/pool.ts';
import { withBootLock } from '../platform/database/migrate.ts';
import * as members from '../members/repo.ts';
import { createClientsService } from '../auth/clients.ts';
import { CORRIDORS, DEMO_CLIENTS, DEMO_SOURCE_MEMBERS, DESTINATION_MEMBERS } from './world.ts';

export interface SeedOptions {
  db: Db;
  clientSecretKey: Buffer;
  /** SANDBOX_CLIENT_SECRET_1 and _2: override the demo secrets. */
  secretOverrides: [string | undefined, string | undefined];
}

export async function seedSandbox(options: SeedOptions): Promise<{ seeded: boolean }> {
  return withBootLock(options.db, async (client) => {
    await client.query('BEGIN');
    try {
      const seeded = (await members.countMembers(client)) === 0;
      const clients = createClientsService({ db: client, clientSecretKey: options.clientSecretKey });
      if (seeded) {
        for (const member of [...DEMO_SOURCE_MEMBERS, ...DESTINATION_MEMBERS]) await members.insertMember(client, member);
        for (const corridor of CORRIDORS) await members.upsertCorridor(client, corridor);
      }
      for (const [index, demo] of DEMO_CLIENTS.entries()) {
        const override = options.secretOverrides[index];
        if (seeded) {
          await clients.create({ memberId: demo.memberId, clientId: demo.clientId, scopes: demo.scopes, secret: override ?? demo.defaultSecret });
        } else if (override !== undefined && !(await clients.withSecrets([override])).includes(demo.clientId)) {
          await clients.rotate(demo.clientId, override);
        }
      }
      await client.query('COMMIT');
      return { seeded };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
