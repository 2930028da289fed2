// GET /v2/events (scope member, extension of CONTRACT section 6).
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../platform/http/errors.ts';
import { refusalError } from '../platform/http/refusals.ts';
import { typed } from '../platform/http/typed.ts';
import { memberOf } from '../auth/plugin.ts';
import type { EventsService } from './service.ts';
import { EVENTS_REFUSALS } from './errors.ts';
import { EventList, EventListQuery } from './schemas.ts';

export async function eventRoutes(fastify: FastifyInstance, opts: { events: EventsService }) {
  const app = typed(fastify);
  app.get('/v2/events', {
    config: { scope: 'member' },
    schema: {
      summary: 'List your events (extension)',
      description:
        'Every status change of your payouts and settlements, oldest first, kept at least 30 days: the same events the webhooks ' +
        'deliver, to reconcile or to catch up after an outage. Page with `after` = the last eventId you have. An event appears here ' +
        'once every transaction that began before it has finished (normally within milliseconds), so that a page never skips one ' +
        'that commits late. An `after` that is not one of your events is 400.',
      tags: ['Notifications'],
      querystring: EventListQuery,
      response: { 200: EventList, ...errorResponses(400) },
    },
  }, async (request) => {
    const result = await opts.events.list(memberOf(request).memberId, request.query);
    if (!result.ok) throw refusalError(EVENTS_REFUSALS, result);
    return { ...result.value, events: result.value.events.map((e) => ({ ...e, timestamp: e.timestamp.toISOString() })) };
  });
}
