// The production rate source: a price feed over HTTP (rate-feed-protocol.ts, docs/rate-feed.md).
// Every quote is checked before it is used: fresh (asOf no older than maxAgeMs, not in the future
// beyond a small clock skew), for the pair asked, a mid that leaves a positive rate. A feed that is
// stale, slow (timeoutMs), failing or unreadable is RATE_SOURCE_UNAVAILABLE with the reason, never
// a guess. Quotes are read without any database lock held: pricing a rate lock reads nothing else.
// Lock requests arriving together for one pair share one feed call, and the feed's answer is kept
// cacheMs (a bounded number of pairs); its age is checked again at each use.
import { Agent, request, type Dispatcher } from 'undici';
import { Value } from 'typebox/value';
import { readJsonAnswer } from '../platform/answer-body.ts';
import { systemClock, type Clock } from '../platform/clock.ts';
import { ok, refuse } from '../platform/result.ts';
import { asOfInstant, feedForecast, FeedQuote, FeedUnknownPair } from './rate-feed-protocol.ts';
import type { QuoteResult, RateSource } from './rate-source.ts';

export const FEED_ANSWER_BYTES_MAX = 16 * 1024;
/** How far in the future an asOf may be (the feed's clock a little ahead of ours). */
export const FEED_CLOCK_SKEW_MS = 5000;
/** When a caller refused for want of a current quote is asked to come back. */
export const FEED_RETRY_AFTER_SECONDS = 5;
export const FEED_CACHE_PAIRS_MAX = 256;

export interface HttpRateSourceOptions {
  /** The feed's base URL; quotes are read from {baseUrl}/rates. */
  baseUrl: string;
  timeoutMs: number;
  maxAgeMs: number;
  spreadBps: number;
  intervalBufferBps: number;
  /** How long one answer of the feed serves further quotes of its pair; 0: none is kept. */
  cacheMs: number;
  dispatcher?: Dispatcher;
  /** The age of a quote is measured when its answer is used, by this clock (default: the system's). */
  clock?: Clock;
}

/** What the feed said about one pair. */
type FeedAnswer =
  | { kind: 'QUOTE'; mid: string; asOf: Date; asOfText: string }
  | { kind: 'UNKNOWN_PAIR' }
  | { kind: 'FAILED'; reason: string };

class UnreadableAnswer extends Error {
  override name = 'UnreadableAnswer';
}

const readJson = (body: Dispatcher.ResponseData['body']) => readJsonAnswer(body, FEED_ANSWER_BYTES_MAX, (why) => new UnreadableAnswer(why));

/** A duration as the detail names it: milliseconds below 10 s, whole seconds above. */
export function durationText(ms: number): string {
  return ms < 10_000 ? `${Math.floor(ms)} ms` : `${Math.floor(ms / 1000)} s`;
}

function answerOf(pair: { base: string; quote: string }, statusCode: number, body: unknown): FeedAnswer {
  const name = `${pair.base}/${pair.quote}`;
  const samePair = (b: { base: string; quote: string }) => b.base === pair.base && b.quote === pair.quote;
  if (statusCode === 404 && Value.Check(FeedUnknownPair, body) && samePair(body)) return { kind: 'UNKNOWN_PAIR' };
  if (statusCode !== 200) return { kind: 'FAILED', reason: `the price feed answered ${statusCode} for ${name}` };
  if (!Value.Check(FeedQuote, body)) return { kind: 'FAILED', reason: `the price feed's answer for ${name} is not a quote` };
  if (!samePair(body)) return { kind: 'FAILED', reason: `the price feed answered for ${body.base}/${body.quote} when asked for ${name}` };
  const asOf = asOfInstant(body.asOf);
  if (!asOf) return { kind: 'FAILED', reason: `the price feed's quote for ${name} has an impossible asOf (${body.asOf})` };
  return { kind: 'QUOTE', mid: body.mid, asOf, asOfText: body.asOf };
}

export function createHttpRateSource(options: HttpRateSourceOptions): RateSource & { close(): Promise<void> } {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const agent = options.dispatcher ?? new Agent({ connections: 8, keepAliveTimeout: 10_000 });
  const cache = new Map<string, { answer: FeedAnswer; atMs: number }>();
  const inFlight = new Map<string, Promise<FeedAnswer>>();
  const clock = options.clock ?? systemClock;

  async function ask(base: string, quote: string): Promise<FeedAnswer> {
    const url = `${baseUrl}/rates?base=${encodeURIComponent(base)}&quote=${encodeURIComponent(quote)}`;
    const signal = AbortSignal.timeout(options.timeoutMs);
    try {
      const response = await request(url, { method: 'GET', headers: { accept: 'application/json' }, signal, dispatcher: agent });
      if (response.statusCode !== 200 && response.statusCode !== 404) {
        await response.body.dump();
        return answerOf({ base, quote }, response.statusCode, undefined);
      }
      return answerOf({ base, quote }, response.statusCode, await readJson(response.body));
    } catch (error) {
      if (signal.aborted) return { kind: 'FAILED', reason: `the price feed did not answer within ${durationText(options.timeoutMs)}` };
      if (error instanceof UnreadableAnswer) return { kind: 'FAILED', reason: `the price feed's answer for ${base}/${quote} ${error.message}` };
      const code = (error as { code?: unknown }).code;
      return { kind: 'FAILED', reason: `the price feed could not be reached${typeof code === 'string' ? ` (${code})` : ''}` };
    }
  }

  /** The feed's answer for the pair: a kept one while it is cacheMs young, or the one call under way, or a new call. */
  function answerFor(base: string, quote: string): Promise<FeedAnswer> {
    const key = `${base}/${quote}`;
    const kept = cache.get(key);
    if (kept && performance.now() - kept.atMs < options.cacheMs) return Promise.resolve(kept.answer);
    const pending = inFlight.get(key);
    if (pending) return pending;
    const call = ask(base, quote).then((answer) => {
      // failures are not kept: the next lock asks again
      if (options.cacheMs > 0 && answer.kind !== 'FAILED') keep(key, answer);
      return answer;
    }).finally(() => inFlight.delete(key));
    inFlight.set(key, call);
    return call;
  }

  function keep(key: string, answer: FeedAnswer) {
    cache.delete(key);
    if (cache.size >= FEED_CACHE_PAIRS_MAX) cache.delete(cache.keys().next().value!);
    cache.set(key, { answer, atMs: performance.now() });
  }

  const unavailable = (reason: string): QuoteResult => refuse('RATE_SOURCE_UNAVAILABLE', reason, FEED_RETRY_AFTER_SECONDS);

  return {
    // `at` (the time the lock was asked) is not used: the quote's age counts until its use, after the call
    async quote(sourceCcy, destinationCcy): Promise<QuoteResult> {
      const answer = await answerFor(sourceCcy, destinationCcy);
      if (answer.kind === 'UNKNOWN_PAIR') return refuse('NOT_QUOTED');
      if (answer.kind === 'FAILED') return unavailable(answer.reason);
      const name = `${sourceCcy}/${destinationCcy}`;
      const ageMs = clock.now().getTime() - answer.asOf.getTime();
      if (ageMs > options.maxAgeMs) {
        return unavailable(`the price feed's quote for ${name} is ${durationText(ageMs)} old (limit ${durationText(options.maxAgeMs)})`);
      }
      if (-ageMs > FEED_CLOCK_SKEW_MS) {
        return unavailable(`the price feed's quote for ${name} is dated ${durationText(-ageMs)} in the future (asOf ${answer.asOfText})`);
      }
      const forecast = feedForecast(answer.mid, options.spreadBps, options.intervalBufferBps);
      if (forecast.some((rate) => rate <= 0n)) {
        return unavailable(`the price feed's mid for ${name} (${answer.mid}) leaves no positive rate after the feed spread`);
      }
      return ok({ forecast });
    },

    async close() {
      if (!options.dispatcher) await agent.close();
    },
  };
}
