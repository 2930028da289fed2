// A member's OAuth clients: create (the secret is shown once), list, rotate, revoke.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../platform/database/pool.ts';
import * as members from '../members/repo.ts';
import * as repo from './repo.ts';
import { generateClientSecret, hashClientSecret, verifyClientSecret } from './secrets.ts';
import { SCOPES, type Scope } from './scopes.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import type { ClientRefusal } from './errors.ts';

export interface ClientView {
  clientId: string;
  memberId: string;
  name: string;
  allowedScopes: Scope[];
  createdAt: string;
  rotatedAt: string | null;
  revokedAt: string | null;
}


export interface CreateClientInput {
  memberId: string;
  clientId?: string;
  name?: string;
  scopes?: Scope[];
  /** Only the sandbox seed passes a known secret; everyone else gets a random one. */
  secret?: string;
}

export interface ClientsDeps {
  db: Queryable;
  clientSecretKey: Buffer;
  /** Called after a revocation or rotation, so this process's token checks see it at once. */
  onChange?: (clientId: string) => void;
}

function view(row: repo.ClientRow): ClientView {
  return {
    clientId: row.clientId,
    memberId: row.memberId,
    name: row.name,
    allowedScopes: row.allowedScopes,
    createdAt: row.createdAt.toISOString(),
    rotatedAt: row.rotatedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

export function createClientsService(deps: ClientsDeps) {
  const { db, clientSecretKey } = deps;

  return {
    async create(input: CreateClientInput): Promise<Result<{ client: ClientView; secret: string }, ClientRefusal>> {
      const member = await members.findMember(db, input.memberId);
      if (!member) return refuse('UNKNOWN_MEMBER');
      if (member.kind !== 'SOURCE') return refuse('NOT_A_SOURCE_MEMBER');
      const clientId = input.clientId ?? `${member.memberId.toLowerCase().replace(/_/g, '-')}-${randomBytes(6).toString('hex')}`;
      const secret = input.secret ?? generateClientSecret();
      const inserted = await repo.insertClient(db, {
        clientId,
        memberId: member.memberId,
        name: input.name ?? '',
        secretHash: hashClientSecret(clientSecretKey, secret),
        allowedScopes: input.scopes ?? [...SCOPES],
      });
      if (!inserted) return refuse('CLIENT_ID_TAKEN');
      const row = await repo.findClient(db, clientId);
      return ok({ client: view(row!), secret });
    },

    async list(memberId?: string): Promise<ClientView[]> {
      return (await repo.listClients(db, memberId)).map(view);
    },

    /** A new secret replaces the old one at once; tokens already issued run to their expiry. */
    async rotate(clientId: string, secret?: string): Promise<Result<{ client: ClientView; secret: string }, ClientRefusal>> {
      const existing = await repo.findClient(db, clientId);
      if (!existing) return refuse('UNKNOWN_CLIENT');
      if (existing.revokedAt) return refuse('CLIENT_REVOKED');
      const newSecret = secret ?? generateClientSecret();
      if (!(await repo.replaceSecret(db, clientId, hashClientSecret(clientSecretKey, newSecret)))) {
        return refuse('CLIENT_REVOKED');
      }
      deps.onChange?.(clientId);
      return ok({ client: view((await repo.findClient(db, clientId))!), secret: newSecret });
    },

    /** A revoked client gets no new tokens, and its live tokens stop working (see auth/plugin.ts). */
    async revoke(clientId: string): Promise<Result<ClientView, ClientRefusal>> {
      if (!(await repo.markRevoked(db, clientId))) return refuse('UNKNOWN_CLIENT');
      deps.onChange?.(clientId);
      return ok(view((await repo.findClient(db, clientId))!));
    },

    /** Active clients whose secret is one of the given (published) values. */
    async withSecrets(secrets: readonly string[]): Promise<string[]> {
      const rows = await repo.listClients(db);
      return rows
        .filter((row) => !row.revokedAt && secrets.some((s) => verifyClientSecret(clientSecretKey, s, row.secretHash)))
        .map((row) => row.clientId);
    },
  };
}

export type ClientsService = ReturnType<typeof createClientsService>;
