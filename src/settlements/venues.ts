// The venues a settlement passes through, one adapter interface per step: the source exchange
// buys the stablecoin with the source currency, the chain carries it, the destination exchange
// swaps it into the destination currency, the bank deposits that with the destination member.
// Every call carries a reference (the settlement id and the step) and a venue must answer a
// repeated reference as it answered the first time, so a retried step never moves money twice.
// Amounts are exact decimal text. A venue throws VenueRefusal for a failure that retrying will
// not mend; anything else it throws is retried.
export class VenueRefusal extends Error {
  override name = 'VenueRefusal';
}

export interface SourceExchange {
  buy(order: { reference: string; currency: string; amount: string; asset: string }): Promise<{ orderId: string; assetAmount: string }>;
}

export interface Chain {
  send(transfer: { reference: string; asset: string; amount: string; toAddress: string }): Promise<{ txHash: string }>;
  confirmations(txHash: string): Promise<number>;
  /** Confirmations after which a transfer is final. */
  readonly requiredConfirmations: number;
}

export interface DestinationExchange {
  swap(order: { reference: string; asset: string; assetAmount: string; currency: string; rate: string }): Promise<{ orderId: string; proceeds: string }>;
}

export interface Bank {
  deposit(order: { reference: string; destinationMemberId: string; currency: string; amount: string }): Promise<{ depositId: string }>;
  status(depositId: string): Promise<'PENDING' | 'CONFIRMED'>;
}

export interface Venues {
  sourceExchange: SourceExchange;
  chain: Chain;
  destinationExchange: DestinationExchange;
  bank: Bank;
  /** The stablecoin the chain carries. */
  asset: string;
  /** Where the destination exchange receives it. */
  depositAddress: string;
}

const notConnected = async (): Promise<never> => {
  throw new VenueRefusal('no venue is connected');
};

/** Production until real venues are connected: every step is refused, nothing moves. */
export const NO_VENUES: Venues = {
  asset: 'USDC',
  depositAddress: '',
  sourceExchange: { buy: notConnected },
  chain: { send: notConnected, confirmations: notConnected, requiredConfirmations: 1 },
  destinationExchange: { swap: notConnected },
  bank: { deposit: notConnected, status: notConnected },
};
