// Where mid-market rates come from. A source quotes, for one currency pair, the rate now and its
// forecast for each execution interval; the service adds the corridor's spread and locks the result.
// The sandbox source is sandbox-rates.ts; production reads a price feed (http-rate-source.ts).
// Rates are exact: integers scaled by 10^RATE_DECIMALS.
import { refuse, type Result } from '../platform/result.ts';
import { EXECUTION_INTERVALS } from './intervals.ts';

/** Decimal places of every rate the service quotes and stores. */
export const RATE_DECIMALS = 6;
export const RATE_SCALE = 10n ** BigInt(RATE_DECIMALS);

export interface MidMarketQuote {
  /** Mid-market rate per execution interval, in EXECUTION_INTERVALS order (IMMEDIATE first), scaled by RATE_SCALE. */
  forecast: bigint[];
}

/**
 * Why a source gave no quote. NOT_QUOTED: it does not quote the pair. RATE_SOURCE_UNAVAILABLE: it
 * cannot give a current one now (its feed is stale, down, slow or unreadable); the refusal's detail
 * says why and its retryAfterSeconds when to ask again.
 */
export type QuoteRefusal = 'NOT_QUOTED' | 'RATE_SOURCE_UNAVAILABLE';
export type QuoteResult = Result<MidMarketQuote, QuoteRefusal>;

export interface RateSource {
  /** The quote for one unit of `sourceCcy` in `destinationCcy` at `at`, or why there is none. */
  quote(sourceCcy: string, destinationCcy: string, at: Date): Promise<QuoteResult>;
}

/** Production without RATE_FEED_URL: nothing is quoted, so no rate is ever locked. */
export const NO_RATE_SOURCE: RateSource = { quote: async () => refuse('NOT_QUOTED') };

export function assertQuote(quote: MidMarketQuote): MidMarketQuote {
  if (quote.forecast.length !== EXECUTION_INTERVALS.length || quote.forecast.some((r) => r <= 0n)) {
    throw new Error('a rate source must quote a positive rate for every execution interval');
  }
  return quote;
}
