// The price feed protocol we speak (docs/rate-feed.md), and how a feed's mid becomes the rate of
// each execution interval.
//
//   GET {RATE_FEED_URL}/rates?base=USD&quote=MXN
//   200 {"base": "USD", "quote": "MXN", "mid": "17.123456", "asOf": "2026-11-23T15:04:05.123Z"}
//   404 {"base": "USD", "quote": "MXN", "error": "UNKNOWN_PAIR"}
//
// `mid` is decimal text (never a JSON number), `asOf` an RFC 3339 date-time: when the feed observed
// the mid. Anything else is no answer.
import { Type, type Static } from 'typebox';
import { instantOf } from '../platform/clock.ts';
import { divideDown, toScaled } from '../platform/money.ts';
import { EXECUTION_INTERVALS, hoursOf } from './intervals.ts';
import { RATE_SCALE } from './rate-source.ts';

/** Decimals a feed's mid may carry; the rates are then rounded down to RATE_DECIMALS. */
export const FEED_MID_DECIMALS_MAX = 18;

const Currency = Type.String({ pattern: '^[A-Z]{3,5}$' });

export const FeedQuote = Type.Object({
  base: Currency,
  quote: Currency,
  // at most nine integer digits: with six decimals every rate stays an exact JSON number
  mid: Type.String({ pattern: `^(0|[1-9][0-9]{0,8})(\\.[0-9]{1,${FEED_MID_DECIMALS_MAX}})?$` }),
  asOf: Type.String({ pattern: '^\\d{4}-\\d\\d-\\d\\d[Tt]\\d\\d:\\d\\d:\\d\\d(\\.\\d{1,9})?([Zz]|[+-]\\d\\d:\\d\\d)$' }),
});
export type FeedQuote = Static<typeof FeedQuote>;

export const FeedUnknownPair = Type.Object({ base: Currency, quote: Currency, error: Type.Literal('UNKNOWN_PAIR') });
export type FeedUnknownPair = Static<typeof FeedUnknownPair>;

/** The instant of a quote's asOf; undefined when it names none (an hour 25, a second 61). */
export function asOfInstant(asOf: string): Date | undefined {
  const instant = instantOf(asOf);
  return Number.isNaN(instant.getTime()) ? undefined : instant;
}

const BPS = 10_000n;

/**
 * The rate of each execution interval from the feed's mid: less the feed's spread, and less one
 * interval buffer more for each hour ahead (the longer until execution, the further the market can
 * move against the locked rate). Rounded down at RATE_DECIMALS: every step lowers the rate a member
 * is given (destination currency per unit of source), never raises it. The corridor's spread
 * comes on top (rates.ts).
 */
export function feedForecast(mid: string, spreadBps: number, intervalBufferBps: number): bigint[] {
  const midScaled = toScaled(mid, FEED_MID_DECIMALS_MAX);
  if (midScaled === undefined || midScaled < 0n) throw new Error(`not a feed mid: ${mid}`);
  const midScale = 10n ** BigInt(FEED_MID_DECIMALS_MAX);
  return EXECUTION_INTERVALS.map((interval) => {
    const keptBps = BPS - BigInt(spreadBps) - BigInt(hoursOf(interval) * intervalBufferBps);
    if (keptBps <= 0n) throw new Error('the feed spread and interval buffers take the whole rate');
    return divideDown(midScaled * keptBps * RATE_SCALE, midScale * BPS);
  });
}
