// GET /healthz (the process is up) and GET /readyz (database and workers ready).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ApiError, errorResponses } from '../platform/http/errors.ts';

/** How long a supervisor or load balancer is told to wait before asking /readyz again. */
const READY_RETRY_AFTER_SECONDS = 1;

export interface Readiness {
  /** Undefined when ready; otherwise why not. */
  notReadyReason(): Promise<string | undefined>;
}

const Status = Type.Object({ status: Type.Literal('ok') }, { examples: [{ status: 'ok' }] });

export async function healthRoutes(app: FastifyInstance, opts: { readiness: Readiness }) {
  app.get(
    '/healthz',
    {
      config: { rateLimit: false },
      schema: { summary: 'Liveness: the process is up', tags: ['Operations'], response: { 200: Status } },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      config: { rateLimit: false },
      schema: {
        summary: 'Readiness: the database and the workers are ready',
        tags: ['Operations'],
        response: { 200: Status, ...errorResponses(503) },
      },
    },
    async () => {
      const reason = await opts.readiness.notReadyReason();
      if (reason !== undefined) throw new ApiError('SERVICE_UNAVAILABLE', 'The service is not ready.', reason, { 'retry-after': String(READY_RETRY_AFTER_SECONDS) });
      return { status: 'ok' as const };
    },
  );
}
