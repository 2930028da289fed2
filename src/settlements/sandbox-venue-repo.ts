// SQL of the sandbox venues: their memory of answers by reference (sandbox_venue_operations) and
// the faults asked of them (sandbox_venue_faults, migration 0033).
import type { Queryable } from '../platform/database/pool.ts';

/** The venue's answer to a reference: the first one given, whatever is asked again. */
export async function remember<T>(db: Queryable, reference: string, answer: () => T): Promise<T> {
  const { rows } = await db.query<{ result: T }>({
    name: 'sandbox-venue-remember',
    text: `INSERT INTO sandbox_venue_operations (reference, result) VALUES ($1, $2)
           ON CONFLICT (reference) DO UPDATE SET reference = EXCLUDED.reference RETURNING result`,
    values: [reference, JSON.stringify(answer())],
  });
  return rows[0]!.result;
}

/** The answer remembered for a reference and its age in milliseconds, or undefined when never asked. */
export async function recall<T>(db: Queryable, reference: string): Promise<{ result: T; ageMs: number } | undefined> {
  const { rows } = await db.query<{ result: T; ageMs: number }>(
    `SELECT result, (extract(epoch FROM clock_timestamp() - created_at) * 1000)::float8 AS "ageMs" FROM sandbox_venue_operations WHERE reference = $1`,
    [reference],
  );
  return rows[0];
}

/** The reference whose remembered answer has this deposit id. */
export async function referenceOfDeposit(db: Queryable, depositId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ reference: string }>(
    `SELECT reference FROM sandbox_venue_operations WHERE result ? 'depositId' AND result->>'depositId' = $1`, [depositId]);
  return rows[0]?.reference;
}

export type VenueFault = 'TIMEOUT' | 'TIMEOUT_AFTER' | 'REFUSE' | 'IN_DOUBT' | 'NOT_SENT';
export type VenueOperation = 'buy' | 'findBuy' | 'send' | 'status' | 'swap' | 'findSwap' | 'deposit' | 'findDeposit' | 'depositStatus';

/** Asks the sandbox venue to answer the next `times` calls of an operation for a reference with a fault. */
export async function injectFault(db: Queryable, reference: string, operation: VenueOperation, fault: VenueFault, times = 1): Promise<void> {
  await db.query(
    `INSERT INTO sandbox_venue_faults (reference, operation, fault, remaining) VALUES ($1, $2, $3, $4)
     ON CONFLICT (reference, operation) DO UPDATE SET fault = EXCLUDED.fault, remaining = EXCLUDED.remaining`,
    [reference, operation, fault, times],
  );
}

/** Takes one use of the fault asked for this call, if any. */
export async function takeFault(db: Queryable, reference: string, operation: VenueOperation): Promise<VenueFault | undefined> {
  const { rows } = await db.query<{ fault: VenueFault }>(
    'UPDATE sandbox_venue_faults SET remaining = remaining - 1 WHERE reference = $1 AND operation = $2 AND remaining > 0 RETURNING fault',
    [reference, operation],
  );
  return rows[0]?.fault;
}
