// When a failed delivery is tried again: the Standard Webhooks schedule, each delay counted from
// the previous attempt, with +-10% jitter so that a receiver coming back is not hit by every
// retry at once. Ten attempts in all, over about three days (well beyond the contract's 24 hours).
const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND_MS, 5 * MINUTE_MS, 30 * MINUTE_MS, 2 * HOUR_MS, 5 * HOUR_MS, 10 * HOUR_MS, 14 * HOUR_MS, 20 * HOUR_MS, 24 * HOUR_MS,
];
export const ATTEMPTS_MAX = RETRY_DELAYS_MS.length + 1;
const JITTER = 0.1;

/** The wait before the next attempt, after `attemptsMade` failed ones; undefined when they are used up. */
export function retryDelayMs(attemptsMade: number, random: () => number = Math.random): number | undefined {
  const base = RETRY_DELAYS_MS[attemptsMade - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
