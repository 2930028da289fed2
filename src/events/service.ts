// The events list (GET /v2/events): the pull-side twin of the webhooks, for a member to catch up
// on what it missed. Oldest first, paged by a cursor that is the last eventId seen.
import type { Clock } from '../platform/clock.ts';
import type { Queryable } from '../platform/database/pool.ts';
import { isUuid } from '../platform/ids.ts';
import type { Task } from 'graphile-worker';
import * as repo from './repo.ts';
import { ok, refuse, type Result } from '../platform/result.ts';
import type { EventsRefusal } from './errors.ts';

export const EVENTS_PAGE_SIZE_DEFAULT = 50;
export const EVENTS_PAGE_SIZE_MAX = 100;
/** Events are kept at least this long (the contract's 30 days). */
export const EVENT_RETENTION_DAYS = 30;
const PURGE_BATCH_SIZE_MAX = 5000;
export const PURGE_EVENTS_TASK = 'events.purge';
export const PURGE_EVENTS_CRON = '17 3 * * *';

export type EventsPage = Result<{ events: repo.EventRecord[]; nextAfter: string | null }, EventsRefusal>;

export function createEventsService(deps: { db: Queryable }) {
  return {
    async list(memberId: string, query: { after?: string; limit?: number }): Promise<EventsPage> {
      const limit = query.limit ?? EVENTS_PAGE_SIZE_DEFAULT;
      let from: { txid: string; seq: string } | undefined;
      if (query.after !== undefined) {
        from = isUuid(query.after) ? await repo.findPosition(deps.db, memberId, query.after) : undefined;
        if (!from) return refuse('UNKNOWN_CURSOR');
      }
      const events = await repo.listEvents(deps.db, memberId, from, limit);
      // an empty page keeps the cursor where it was: ask again later with the same value
      return ok({ events, nextAfter: events.at(-1)?.eventId ?? query.after ?? null });
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;

/** The daily purge: events (and their deliveries) older than the retention period, in bounded batches. */
export const purgeEventsTask = (db: Queryable, clock: Clock): Task => async (_payload, helpers) => {
  const olderThan = new Date(clock.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000);
  let purged = 0;
  for (let batch = await repo.purgeEvents(db, olderThan, PURGE_BATCH_SIZE_MAX); batch > 0; batch = await repo.purgeEvents(db, olderThan, PURGE_BATCH_SIZE_MAX)) {
    purged += batch;
  }
  if (purged > 0) helpers.logger.info(`purged ${purged} events older than ${EVENT_RETENTION_DAYS} days`);
};
