// The source side of a production settlement: the treasury's own stablecoin inventory. The source
// member's funds, in a currency the stablecoin is pegged to (USD for USDC, by default), buy the
// stablecoin one for one from the treasury; no outside party is called, so a buy cannot be in
// doubt: the answer is a function of the settlement alone, the same on every repeat, and
// `findBuy` gives it again. A source currency the stablecoin is not pegged to is refused before
// anything moves (a VenueRefusal: the settlement fails and its funds go back). The treasury is
// refilled by operators outside the service; `npm run admin -- chain reconcile` compares its
// on-chain balance with the ledger.
import type { Queryable } from '../platform/database/pool.ts';
import { settlementIdOf } from './references.ts';
import * as repo from './repo.ts';
import { VenueRefusal, type SourceExchange, type SourceExchangeLookup } from './venues.ts';

export interface TreasuryExchangeOptions {
  db: Queryable;
  /** The stablecoin the treasury holds (the chain rail's asset). */
  asset: string;
  /** Source currencies bought one for one (default: USD). */
  peggedCurrencies?: readonly string[];
}

export function createTreasuryExchange(options: TreasuryExchangeOptions): SourceExchange & SourceExchangeLookup {
  const pegged = new Set(options.peggedCurrencies ?? ['USD']);
  const orderId = (reference: string) => `treasury:${reference}`;

  function answer(reference: string, currency: string, amount: string, asset: string) {
    if (asset !== options.asset) throw new VenueRefusal(`the treasury holds ${options.asset}, not ${asset}`);
    if (!pegged.has(currency)) throw new VenueRefusal(`${options.asset} is bought one for one with ${[...pegged].join(', ')} only, not ${currency}`);
    return { orderId: orderId(reference), assetAmount: amount };
  }

  return {
    async buy(order) {
      return answer(order.reference, order.currency, order.amount, order.asset);
    },
    async findBuy(reference) {
      const row = await repo.readSettlement(options.db, settlementIdOf(reference));
      if (!row || !pegged.has(row.sourceCcy)) return { found: false };
      return { found: true, result: answer(reference, row.sourceCcy, row.settlementAmt, options.asset) };
    },
  };
}
