// Members and corridors change rarely (an operator, through the admin CLI). Payout creations,
// rate locks and settlement creations read them through this cache, so a change takes effect
// within TTL_MS.
import type { Clock } from '../platform/clock.ts';
import type { Queryable } from '../platform/database/pool.ts';
import { corridorTerms, findMember, type CorridorTerms, type Member } from './repo.ts';

const TTL_MS = 5000;

function cached<K, V>(clock: Clock, load: (key: K) => Promise<V>) {
  const entries = new Map<K, { value: Promise<V>; atMs: number }>();
  return (key: K): Promise<V> => {
    const now = clock.now().getTime();
    const hit = entries.get(key);
    if (hit && now - hit.atMs < TTL_MS) return hit.value;
    const value = load(key);
    entries.set(key, { value, atMs: now });
    value.catch(() => entries.delete(key)); // a failed read is not remembered
    return value;
  };
}

export function createDirectory(db: Queryable, clock: Clock) {
  const member = cached(clock, (memberId: string) => findMember(db, memberId));
  const corridors = cached(clock, (pair: string) => {
    const [source, destination] = pair.split('\n') as [string, string];
    return corridorTerms(db, source, destination);
  });
  return {
    member: (memberId: string): Promise<Member | undefined> => member(memberId),
    /** The source member's corridors to the destination member (one per destination currency). */
    corridors: (sourceMemberId: string, destinationMemberId: string): Promise<CorridorTerms[]> => corridors(`${sourceMemberId}\n${destinationMemberId}`),
  };
}

export type Directory = ReturnType<typeof createDirectory>;
