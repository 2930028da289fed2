// The operators' audit trail (table admin_audit): every change made through the admin CLI, with
// who made it, when, what, and the row before and after. Written in the transaction of the change.
import type { Queryable } from '../platform/database/pool.ts';

export interface AuditEntry {
  actor: string;
  action: string;
  subject: string;
  before: unknown;
  after: unknown;
}

export async function insertAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  await db.query(
    'INSERT INTO admin_audit (actor, action, subject, before, after) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)',
    [entry.actor, entry.action, entry.subject, entry.before === undefined ? null : JSON.stringify(entry.before), entry.after === undefined ? null : JSON.stringify(entry.after)],
  );
}

export async function auditFor(db: Queryable, subject: string): Promise<Array<AuditEntry & { at: Date }>> {
  const { rows } = await db.query<AuditEntry & { at: Date }>(
    'SELECT actor, at, action, subject, before, after FROM admin_audit WHERE subject = $1 ORDER BY audit_id',
    [subject],
  );
  return rows;
}

/** Writes audit rows for one operator: audit(client, action, subject, before, after). */
export function auditorFor(actor: string) {
  return (db: Queryable, action: string, subject: string, before: unknown, after: unknown) =>
    insertAudit(db, { actor, action, subject, before: before ?? null, after });
}
export type Auditor = ReturnType<typeof auditorFor>;
