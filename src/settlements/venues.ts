// The venues a settlement passes through, one adapter interface per step: the source exchange
// buys the stablecoin with the source currency, the chain carries it, the destination exchange
// swaps it into the destination currency, the bank deposits that with the destination member.
// Every call carries a reference (the settlement id and the step) and a venue must answer a
// repeated reference as it answered the first time, so a retried step never moves money twice.
// Amounts are exact decimal text. A venue throws VenueRefusal for a refusal that is its word that
// nothing was done and retrying will not mend; anything else it throws leaves the outcome unknown,
// and the pipeline asks the venue by reference (the lookups below) before doing anything else.
export class VenueRefusal extends Error {
  override name = 'VenueRefusal';
}

export interface SourceExchange extends SourceExchangeLookup {
  buy(order: { reference: string; currency: string; amount: string; asset: string }): Promise<{ orderId: string; assetAmount: string }>;
}

export interface DestinationExchange extends DestinationExchangeLookup {
  swap(order: { reference: string; asset: string; assetAmount: string; currency: string; rate: string }): Promise<{ orderId: string; proceeds: string }>;
}

export interface Bank extends BankLookup {
  deposit(order: { reference: string; destinationMemberId: string; currency: string; amount: string }): Promise<{ depositId: string }>;
  status(depositId: string): Promise<'PENDING' | 'CONFIRMED'>;
}

export interface Venues {
  sourceExchange: SourceExchange;
  /** The chain rail; its asset is the stablecoin a settlement buys. It sends to the destination member's wallet. */
  chain: ChainTransfers;
  destinationExchange: DestinationExchange;
  bank: Bank;
}

const notConnected = async (): Promise<never> => {
  throw new VenueRefusal('no venue is connected');
};

/** Production until real venues are connected: every step is refused, nothing moves. */
export const NO_VENUES: Venues = {
  sourceExchange: { buy: notConnected, findBuy: async () => ({ found: false }) },
  chain: { asset: 'USDC', send: notConnected, status: async () => ({ state: 'UNKNOWN' }) },
  destinationExchange: { swap: notConnected, findSwap: async () => ({ found: false }) },
  bank: { deposit: notConnected, status: notConnected, findDeposit: async () => ({ found: false }) },
};

// ---------------------------------------------------------------------------------------------
// Asking by reference. After a timeout, a dropped connection or an unclear answer the outcome of a
// call is unknown, and a step must not repeat or undo it blindly: it asks the venue what it did
// with the reference. A lookup that throws settles nothing (ask again later, then park).

/** What a venue knows of a reference: `NOT_FOUND` is its word that nothing was done with it. */
export type VenueLookup<T> = { found: true; result: T } | { found: false };

export interface SourceExchangeLookup {
  /** The order placed with this reference, if any. */
  findBuy(reference: string): Promise<VenueLookup<{ orderId: string; assetAmount: string }>>;
}

export interface DestinationExchangeLookup {
  findSwap(reference: string): Promise<VenueLookup<{ orderId: string; proceeds: string }>>;
}

export interface BankLookup {
  findDeposit(reference: string): Promise<VenueLookup<{ depositId: string }>>;
}

/**
 * What the chain rail knows of an outbound transfer, asked by its reference.
 * - `UNKNOWN`: no intent was ever recorded under the reference: nothing was signed, nothing moved.
 * - `PENDING`: recorded (perhaps signed and broadcast) and not final yet; `txHash` is the latest
 *   signed attempt's hash, null before signing.
 * - `CONFIRMED`: mined with success and buried under the required confirmations: the money moved.
 * - `NOT_SENT`: proven that no transaction of this transfer can ever be mined (nothing was
 *   broadcast, or the nonce was taken by another of the treasury's recorded transactions): nothing moved.
 * - `IN_DOUBT`: the chain's answer does not settle it (a revert, a nonce used by a transaction the
 *   service did not record, a receipt that vanished): an operator decides.
 */
export type ChainTransferState =
  | { state: 'UNKNOWN' }
  | { state: 'PENDING'; txHash: string | null; confirmations: number }
  | { state: 'CONFIRMED'; txHash: string; confirmations: number; blockNumber: string }
  | { state: 'NOT_SENT'; reason: string }
  | { state: 'IN_DOUBT'; txHash: string | null; reason: string };

/**
 * The chain rail: an outbound stablecoin transfer from the treasury, crash-safe by reference.
 * `send` records the intent (amount, recipient, nonce) before anything leaves, then signs, records
 * the signed bytes and broadcasts them, all with no lock held during the calls to the signer or the
 * node; calling it again with the same reference never makes a second transaction: it rebroadcasts
 * the recorded bytes (or a recorded same-nonce replacement). It throws when the node's answer is
 * unclear; the caller then asks `status`. Amounts are exact decimal text in the asset's unit.
 */
export interface ChainTransfers {
  /** The stablecoin's symbol, e.g. USDC. */
  readonly asset: string;
  /** How long a pending transfer is left before it is asked about again (about a block's time); unset: the pipeline's own recheck. */
  readonly pollMs?: number;
  send(transfer: { reference: string; amount: string; toAddress: string }): Promise<ChainTransferState>;
  status(reference: string): Promise<ChainTransferState>;
}
