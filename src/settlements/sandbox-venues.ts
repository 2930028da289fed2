// The sandbox venues: an exchange that buys the stablecoin 1:1 with the source currency, a chain
// whose transfers gain a confirmation every CONFIRMATION_MS, a destination exchange that swaps at
// the settlement's rate, and a bank whose deposits confirm after DEPOSIT_CONFIRM_MS. Each
// remembers its answers by reference (sandbox_venue_operations), so a repeated call with the same
// reference answers as the first did and moves nothing twice.
import { createHash, randomUUID } from 'node:crypto';
import type { Queryable } from '../platform/database/pool.ts';
import { convert, formatMinor, parseAmount } from '../platform/money.ts';
import type { Venues } from './venues.ts';

const CONFIRMATION_MS = 300;
const REQUIRED_CONFIRMATIONS = 3;
const DEPOSIT_CONFIRM_MS = 300;
const ASSET = 'USDC';

/** The venue's answer to a reference: the first one given, whatever is asked again. */
async function remember<T>(db: Queryable, reference: string, answer: () => T): Promise<T> {
  const { rows } = await db.query<{ result: T }>({
    name: 'sandbox-venue-remember',
    text: `INSERT INTO sandbox_venue_operations (reference, result) VALUES ($1, $2)
           ON CONFLICT (reference) DO UPDATE SET reference = EXCLUDED.reference RETURNING result`,
    values: [reference, JSON.stringify(answer())],
  });
  return rows[0]!.result;
}

/** Milliseconds since the venue first saw the reference. */
async function ageOf(db: Queryable, reference: string): Promise<number | undefined> {
  const { rows } = await db.query<{ ageMs: number }>(
    `SELECT (extract(epoch FROM clock_timestamp() - created_at) * 1000)::float8 AS "ageMs" FROM sandbox_venue_operations WHERE reference = $1`,
    [reference],
  );
  return rows[0]?.ageMs;
}

export function createSandboxVenues(db: Queryable): Venues {
  return {
    asset: ASSET,
    depositAddress: '0xSandboxDestinationExchange',
    sourceExchange: {
      buy: (order) => remember(db, order.reference, () => ({ orderId: `buy_${randomUUID()}`, assetAmount: order.amount })),
    },
    chain: {
      requiredConfirmations: REQUIRED_CONFIRMATIONS,
      send: (transfer) => remember(db, transfer.reference, () => ({
        txHash: `0x${createHash('sha256').update(transfer.reference).digest('hex')}`,
      })),
      async confirmations(txHash) {
        const { rows } = await db.query<{ reference: string }>(`SELECT reference FROM sandbox_venue_operations WHERE result ? 'txHash' AND result->>'txHash' = $1`, [txHash]);
        const age = rows[0] ? await ageOf(db, rows[0].reference) : undefined;
        return age === undefined ? 0 : Math.floor(age / CONFIRMATION_MS);
      },
    },
    destinationExchange: {
      swap: (order) => remember(db, order.reference, () => {
        const amount = parseAmount(order.assetAmount, 'USD');
        if (!amount.ok) throw new Error(`swap of ${order.assetAmount} ${order.asset}: not an amount`);
        return { orderId: `swap_${randomUUID()}`, proceeds: formatMinor(convert(amount.minor, 'USD', order.rate, order.currency), order.currency) };
      }),
    },
    bank: {
      deposit: (order) => remember(db, order.reference, () => ({ depositId: `dep_${randomUUID()}` })),
      async status(depositId) {
        const { rows } = await db.query<{ reference: string }>(`SELECT reference FROM sandbox_venue_operations WHERE result ? 'depositId' AND result->>'depositId' = $1`, [depositId]);
        const age = rows[0] ? await ageOf(db, rows[0].reference) : undefined;
        return age !== undefined && age >= DEPOSIT_CONFIRM_MS ? 'CONFIRMED' : 'PENDING';
      },
    },
  };
}
