// SQL for OAuth clients. The only place that knows the oauth_clients table.
import type { Queryable } from '../platform/database/pool.ts';
import type { Scope } from './scopes.ts';

export interface ClientRow {
  clientId: string;
  memberId: string;
  name: string;
  secretHash: Buffer;
  allowedScopes: Scope[];
  createdAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
}

const COLUMNS = `client_id AS "clientId", member_id AS "memberId", name, secret_hash AS "secretHash",
  allowed_scopes AS "allowedScopes", created_at AS "createdAt", rotated_at AS "rotatedAt", revoked_at AS "revokedAt"`;

export async function findClient(db: Queryable, clientId: string): Promise<ClientRow | undefined> {
  const { rows } = await db.query<ClientRow>(`SELECT ${COLUMNS} FROM oauth_clients WHERE client_id = $1`, [clientId]);
  return rows[0];
}

export async function listClients(db: Queryable, memberId?: string): Promise<ClientRow[]> {
  const { rows } = await db.query<ClientRow>(
    `SELECT ${COLUMNS} FROM oauth_clients WHERE ($1::text IS NULL OR member_id = $1) ORDER BY member_id, created_at, client_id`,
    [memberId ?? null],
  );
  return rows;
}

export interface NewClient {
  clientId: string;
  memberId: string;
  name: string;
  secretHash: Buffer;
  allowedScopes: Scope[];
}

/** Inserts a client; returns false when the client id is taken. */
export async function insertClient(db: Queryable, client: NewClient): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO oauth_clients (client_id, member_id, name, secret_hash, allowed_scopes)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (client_id) DO NOTHING`,
    [client.clientId, client.memberId, client.name, client.secretHash, client.allowedScopes],
  );
  return result.rowCount === 1;
}

/** Replaces the secret of an active client; returns false when there is no such active client. */
export async function replaceSecret(db: Queryable, clientId: string, secretHash: Buffer): Promise<boolean> {
  const result = await db.query(
    `UPDATE oauth_clients SET secret_hash = $2, rotated_at = now() WHERE client_id = $1 AND revoked_at IS NULL`,
    [clientId, secretHash],
  );
  return result.rowCount === 1;
}

/** Marks a client revoked; returns false when it does not exist. Revoking twice keeps the first time. */
export async function markRevoked(db: Queryable, clientId: string): Promise<boolean> {
  const result = await db.query(
    `UPDATE oauth_clients SET revoked_at = coalesce(revoked_at, now()) WHERE client_id = $1`,
    [clientId],
  );
  return result.rowCount === 1;
}

export async function isClientActive(db: Queryable, clientId: string): Promise<boolean> {
  const { rows } = await db.query<{ active: boolean }>(
    `SELECT revoked_at IS NULL AS active FROM oauth_clients WHERE client_id = $1`,
    [clientId],
  );
  return rows[0]?.active === true;
}
