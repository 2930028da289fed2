// The sandbox venues: an exchange that buys the stablecoin 1:1 with the source currency, a chain
// whose transfers gain a confirmation every CONFIRMATION_MS, a destination exchange that swaps at
// the settlement's rate, and a bank whose deposits confirm after DEPOSIT_CONFIRM_MS. Each
// remembers its answers by reference (sandbox_venue_operations), so a repeated call with the same
// reference answers as the first did and moves nothing twice, and its lookups by reference read
// those answers. Faults can be asked of them (sandbox-venue-repo.ts injectFault): a call that times
// out before or after acting, a refusal, a chain that answers in doubt or not sent.
import { createHash, randomUUID } from 'node:crypto';
import type { Queryable } from '../platform/database/pool.ts';
import { convert, formatMinor, parseAmount } from '../platform/money.ts';
import { recall, referenceOfDeposit, remember, takeFault, type VenueOperation } from './sandbox-venue-repo.ts';
import { VenueRefusal, type ChainTransferState, type ChainTransfers, type VenueLookup, type Venues } from './venues.ts';

const CONFIRMATION_MS = 300;
const REQUIRED_CONFIRMATIONS = 3;
const DEPOSIT_CONFIRM_MS = 300;
const ASSET = 'USDC';

/** Runs a venue operation as asked: with the fault injected for it, if any. */
async function act<T>(db: Queryable, reference: string, operation: VenueOperation, work: () => Promise<T>): Promise<T> {
  const fault = await takeFault(db, reference, operation);
  if (fault === 'REFUSE') throw new VenueRefusal(`sandbox venue refused ${operation} ${reference}`);
  if (fault === 'TIMEOUT') throw new Error(`sandbox venue timed out on ${operation} ${reference}`);
  const answer = await work();
  if (fault === 'TIMEOUT_AFTER') throw new Error(`sandbox venue timed out on ${operation} ${reference} (after acting)`);
  return answer;
}

async function lookup<T>(db: Queryable, reference: string, operation: VenueOperation): Promise<VenueLookup<T>> {
  return act(db, reference, operation, async () => {
    const known = await recall<T>(db, reference);
    return known ? { found: true as const, result: known.result } : { found: false as const };
  });
}

interface SandboxTransfer { txHash: string; amount: string; toAddress: string }

/** A remembered transfer's state: a confirmation per CONFIRMATION_MS since it was first sent. */
function stateOf(transfer: SandboxTransfer, ageMs: number): ChainTransferState {
  const confirmations = Math.floor(ageMs / CONFIRMATION_MS);
  if (confirmations < REQUIRED_CONFIRMATIONS) return { state: 'PENDING', txHash: transfer.txHash, confirmations };
  return { state: 'CONFIRMED', txHash: transfer.txHash, confirmations, blockNumber: String(1_000_000 + confirmations) };
}

/** A fault of the chain's own vocabulary (IN_DOUBT, NOT_SENT), a thrown one, or NONE (AFTER: act, then time out). */
async function chainFault(db: Queryable, reference: string, operation: 'send' | 'status'): Promise<ChainTransferState | 'NONE' | 'AFTER'> {
  const fault = await takeFault(db, reference, operation);
  if (fault === 'TIMEOUT_AFTER') return 'AFTER';
  if (fault === 'IN_DOUBT') return { state: 'IN_DOUBT', txHash: null, reason: 'sandbox: the chain answer does not settle it' };
  if (fault === 'NOT_SENT') return { state: 'NOT_SENT', reason: 'sandbox: nothing was broadcast' };
  if (fault === 'TIMEOUT') throw new Error(`sandbox chain timed out on ${operation} ${reference}`);
  if (fault === 'REFUSE') throw new VenueRefusal(`sandbox chain refused ${operation} ${reference}`);
  return 'NONE';
}

export function createSandboxChain(db: Queryable): ChainTransfers {
  async function status(reference: string): Promise<ChainTransferState> {
    const known = await recall<SandboxTransfer>(db, reference);
    return known ? stateOf(known.result, known.ageMs) : { state: 'UNKNOWN' };
  }
  return {
    asset: ASSET,
    async send(transfer) {
      const fault = await chainFault(db, transfer.reference, 'send');
      if (fault !== 'NONE' && fault !== 'AFTER') return fault;
      await remember<SandboxTransfer>(db, transfer.reference, () => ({
        txHash: `0x${createHash('sha256').update(transfer.reference).digest('hex')}`, amount: transfer.amount, toAddress: transfer.toAddress,
      }));
      if (fault === 'AFTER') throw new Error(`sandbox chain timed out on send ${transfer.reference} (after broadcasting)`);
      return status(transfer.reference);
    },
    async status(reference) {
      const fault = await chainFault(db, reference, 'status');
      if (fault === 'AFTER') throw new Error(`sandbox chain timed out on status ${reference}`);
      return fault !== 'NONE' ? fault : status(reference);
    },
  };
}

export function createSandboxVenues(db: Queryable): Venues {
  return {
    sourceExchange: {
      buy: (order) => act(db, order.reference, 'buy', () => remember(db, order.reference, () => ({ orderId: `buy_${randomUUID()}`, assetAmount: order.amount }))),
      findBuy: (reference) => lookup(db, reference, 'findBuy'),
    },
    chain: createSandboxChain(db),
    destinationExchange: {
      swap: (order) => act(db, order.reference, 'swap', () => remember(db, order.reference, () => {
        const amount = parseAmount(order.assetAmount, 'USD');
        if (!amount.ok) throw new Error(`swap of ${order.assetAmount} ${order.asset}: not an amount`);
        return { orderId: `swap_${randomUUID()}`, proceeds: formatMinor(convert(amount.minor, 'USD', order.rate, order.currency), order.currency) };
      })),
      findSwap: (reference) => lookup(db, reference, 'findSwap'),
    },
    bank: {
      deposit: (order) => act(db, order.reference, 'deposit', () => remember(db, order.reference, () => ({ depositId: `dep_${randomUUID()}` }))),
      findDeposit: (reference) => lookup(db, reference, 'findDeposit'),
      async status(depositId) {
        const reference = await referenceOfDeposit(db, depositId);
        if (reference === undefined) return 'PENDING';
        return act(db, reference, 'depositStatus', async () => {
          const known = await recall(db, reference);
          return known !== undefined && known.ageMs >= DEPOSIT_CONFIRM_MS ? 'CONFIRMED' : 'PENDING';
        });
      },
    },
  };
}
