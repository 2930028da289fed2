// Where mid-market rates come from. A source quotes, for one currency pair, the rate now and its
// forecast for each execution interval; the service adds the corridor's spread and locks the result.
// The sandbox source is sandbox-rates.ts; production plugs in an implementation that reads a price
// feed. Rates are exact: integers scaled by 10^RATE_DECIMALS.
import { EXECUTION_INTERVALS } from './intervals.ts';

/** Decimal places of every rate the service quotes and stores. */
export const RATE_DECIMALS = 6;
export const RATE_SCALE = 10n ** BigInt(RATE_DECIMALS);

export interface MidMarketQuote {
  /** Mid-market rate per execution interval, in EXECUTION_INTERVALS order (IMMEDIATE first), scaled by RATE_SCALE. */
  forecast: bigint[];
}

export interface RateSource {
  /** The quote for one unit of `sourceCcy` in `destinationCcy` at `at`; undefined when the pair is not quoted. */
  quote(sourceCcy: string, destinationCcy: string, at: Date): Promise<MidMarketQuote | undefined>;
}

/** Production until a price feed is connected: nothing is quoted, so no rate is ever locked. */
export const NO_RATE_SOURCE: RateSource = { quote: async () => undefined };

export function assertQuote(quote: MidMarketQuote): MidMarketQuote {
  if (quote.forecast.length !== EXECUTION_INTERVALS.length || quote.forecast.some((r) => r <= 0n)) {
    throw new Error('a rate source must quote a positive rate for every execution interval');
  }
  return quote;
}
