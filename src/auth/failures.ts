// Failed authentication, limited per source address and per client id, in counters of its own
// (auth_failures, shared by every process on the database) that authenticated traffic never
// touches: someone else's failures can slow an attacker down but never lock the real client out.
//
// Token requests (POST /oauth2/token) are checked before the secret is verified:
// - per address: an address with AUTH_FAILURES_PER_ADDRESS_MAX failed token requests in the
//   window gets 429 for everything it sends to the token endpoint until the window ends;
// - per client id: once a client id has AUTH_FAILURES_PER_CLIENT_MAX failures in the window (from
//   any addresses), only addresses that have not failed for that client id may still try it. A
//   guesser spread over many addresses gets one guess per address and window; the real client,
//   which holds the secret and so does not fail, keeps getting tokens. A plain per-client lockout
//   would hand anyone who knows a client id the power to shut that client out.
// Bearer tokens that fail (missing, malformed, forged, expired, of a revoked client) count per
// address in a bucket of their own: the failure that crosses the limit and the ones after it are
// 429 instead of 401. They do not count against the token endpoint, so a client that sent a burst
// of requests with an expired token can still get a new one; and a valid token is never refused
// here (its check reads and writes nothing in this module).
//
// Windows are fixed (an address can fail up to twice the limit across a window boundary), and
// attempts that pass the check together are all verified (a burst may overshoot by its size;
// each failure is still counted once). Only failures write; a successful token request reads its
// three counters (in the round trip that reads its client row), an API call nothing.
import type { Db } from '../platform/database/pool.ts';
import * as repo from './failure-repo.ts';

export interface FailureLimits {
  windowSeconds: number;
  perAddressMax: number;
  perClientMax: number;
}

export interface Refusal {
  /** What was over its limit: the source address, or the client id (for an address that has failed for it). */
  over: 'address' | 'client';
  limit: number;
  windowSeconds: number;
  retryAfterSeconds: number;
}

export interface FailureGuard {
  /** A refusal this process already knows of for a token request: no query. */
  knownTokenRefusal(address: string, clientId: string | undefined): Refusal | undefined;
  /** Whether a token request from this address, for this client id, may be checked at all. */
  tokenAttemptRefusal(address: string, clientId: string | undefined): Promise<Refusal | undefined>;
  /** Counts a failed token request (bad, unknown, missing or malformed credentials). */
  tokenFailed(address: string, clientId: string | undefined): Promise<void>;
  /** Counts a failed bearer token; a refusal when the address is now over its limit. */
  bearerFailed(address: string): Promise<Refusal | undefined>;
}

/** A guard that never refuses (mock mode: no database, no secrets to guess). */
export const NO_FAILURE_GUARD: FailureGuard = {
  knownTokenRefusal: () => undefined,
  tokenAttemptRefusal: async () => undefined,
  tokenFailed: async () => undefined,
  bearerFailed: async () => undefined,
};

/** Client ids longer than any real one (ids are at most 100 characters) are counted together. */
const CLIENT_ID_BUCKET_CHARS_MAX = 100;
/** Refusals this process remembers, so that a blocked address costs no query; cleared when full. */
const REFUSALS_REMEMBERED_MAX = 10_000;

/** IPv6 addresses count by their /64: one host usually holds a whole /64 and can send from any address in it. */
export function addressKey(address: string): string {
  if (!address.includes(':') || address.toLowerCase().startsWith('::ffff:')) return address;
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? front : [...front, ...Array(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${groups.slice(0, 4).map((g) => (g.replace(/^0+/, '') || '0').toLowerCase()).join(':')}::/64`;
}

const buckets = (address: string, clientId: string | undefined) => {
  const ip = addressKey(address);
  const id = clientId?.slice(0, CLIENT_ID_BUCKET_CHARS_MAX);
  return {
    address: `token-address:${ip}`,
    client: id === undefined ? undefined : `client:${id}`,
    pair: id === undefined ? undefined : `client-address:${ip} ${id}`,
    bearer: `bearer-address:${ip}`,
  };
};

export interface FailureGuardDeps {
  db: Db;
  limits: FailureLimits;
  now?: () => number;
  /** Called when this process first refuses a bucket in a window (for the operators' log). */
  onLimitReached?: (bucket: string, refusal: Refusal) => void;
  onPruneError?: (error: unknown) => void;
}

export function createFailureGuard(deps: FailureGuardDeps): FailureGuard {
  const { db, limits } = deps;
  const now = deps.now ?? Date.now;
  const remembered = new Map<string, { refusal: Refusal; untilMs: number }>();
  let prunedAtMs = 0;

  /** Remembers a refusal until its window ends (secondsLeft from PostgreSQL's clock). */
  const remember = (key: string, refusal: Refusal, secondsLeft: number) => {
    if (remembered.size >= REFUSALS_REMEMBERED_MAX) remembered.clear();
    if (!remembered.has(key)) deps.onLimitReached?.(key, refusal);
    remembered.set(key, { refusal, untilMs: now() + secondsLeft * 1000 });
  };
  const recall = (key: string | undefined): Refusal | undefined => {
    const entry = key === undefined ? undefined : remembered.get(key);
    if (!entry) return undefined;
    if (entry.untilMs > now()) return { ...entry.refusal, retryAfterSeconds: Math.max(1, Math.ceil((entry.untilMs - now()) / 1000)) };
    remembered.delete(key!);
    return undefined;
  };
  const refusal = (over: Refusal['over'], limit: number, secondsLeft: number): Refusal => ({
    over, limit, windowSeconds: limits.windowSeconds, retryAfterSeconds: Math.max(1, Math.ceil(secondsLeft)),
  });

  /** The refusal the token rules give for these counts, remembered under the key it blocks. */
  const judgeToken = (b: ReturnType<typeof buckets>, counts: repo.BucketCount[]): Refusal | undefined => {
    const count = (bucket: string | undefined) => counts.find((c) => c.bucket === bucket);
    const address = count(b.address);
    if (address && address.failures >= limits.perAddressMax) {
      const r = refusal('address', limits.perAddressMax, address.secondsLeft);
      remember(b.address, r, address.secondsLeft);
      return r;
    }
    const client = count(b.client);
    if (client && client.failures >= limits.perClientMax && count(b.pair) !== undefined) {
      const r = refusal('client', limits.perClientMax, client.secondsLeft);
      remember(b.pair!, r, client.secondsLeft);
      return r;
    }
    return undefined;
  };

  const count = async (keys: string[]) => {
    if (now() - prunedAtMs >= limits.windowSeconds * 1000) {
      prunedAtMs = now();
      repo.pruneFailures(db, limits.windowSeconds).catch((error: unknown) => deps.onPruneError?.(error));
    }
    return repo.addFailure(db, keys, limits.windowSeconds);
  };

  return {
    knownTokenRefusal(address, clientId) {
      const b = buckets(address, clientId);
      return recall(b.address) ?? recall(b.pair);
    },

    async tokenAttemptRefusal(address, clientId) {
      const b = buckets(address, clientId);
      const known = recall(b.address) ?? recall(b.pair);
      if (known) return known;
      const keys = [b.address, b.client, b.pair].filter((k): k is string => k !== undefined);
      return judgeToken(b, await repo.readCounts(db, keys, limits.windowSeconds));
    },

    async tokenFailed(address, clientId) {
      const b = buckets(address, clientId);
      const keys = [b.address, b.client, b.pair].filter((k): k is string => k !== undefined);
      judgeToken(b, await count(keys)); // remembers the refusal the next attempt would get
    },

    async bearerFailed(address) {
      const b = buckets(address, undefined);
      const known = recall(b.bearer);
      if (known) return known;
      const [bearer] = await count([b.bearer]);
      if (!bearer || bearer.failures <= limits.perAddressMax) return undefined;
      const r = refusal('address', limits.perAddressMax, bearer.secondsLeft);
      remember(b.bearer, r, bearer.secondsLeft);
      return r;
    },
  };
}
