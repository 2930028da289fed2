// GET /metrics: Prometheus text, for a scraper holding METRICS_TOKEN. Not part of the API (absent
// from the OpenAPI document), and not served at all while no token is configured.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../platform/http/errors.ts';
import type { Metrics } from './registry.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

export async function metricsRoutes(app: FastifyInstance, opts: { metrics: Metrics; token: string }) {
  const expected = digest(`Bearer ${opts.token}`);
  app.get('/metrics', { schema: { hide: true }, config: { rateLimit: false } }, async (request, reply) => {
    const given = request.headers.authorization;
    // compared as digests, in constant time: the token's length and prefix are not given away
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      const challenge = given === undefined ? 'Bearer' : 'Bearer error="invalid_token"';
      throw new ApiError('UNAUTHORIZED', 'A valid metrics token is required', '', { 'WWW-Authenticate': challenge });
    }
    const text = await opts.metrics.render();
    return reply.type(opts.metrics.registry.contentType).send(text);
  });
}
