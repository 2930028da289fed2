// Mock mode's handlers. Every secured route keeps its schemas (so requests are validated and
// refused exactly as by the real service, and answers serialised by the same response schemas);
// only its handler is replaced by one that answers the operation's documented examples. The
// LIVE_OPERATIONS (the catalogue and the creations) keep their own handler, over mock services that
// run the sandbox's rules, unless the request names an example or a code with Prefer.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ApiError } from '../platform/http/errors.ts';
import { echo, examplesOf, parsePrefer } from './examples.ts';
import { LIVE_OPERATIONS } from './services.ts';

type Schema = Record<string, unknown>;

function statusesOf(route: RouteOptions): number[] {
  const responses = ((route.schema as Schema | undefined)?.['response'] ?? {}) as Schema;
  return Object.keys(responses).map(Number).filter(Number.isInteger).sort((a, b) => a - b);
}

/** Replaces the handler of every secured route (the payout, settlement and member areas) from now on. */
export function installMockHandlers(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.scope === undefined) return; // token, health and documents keep their own handlers
    const examples = mockHandler(app, route);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => LIVE_OPERATIONS.has(`${m} ${route.url}`))) {
      route.handler = examples;
      return;
    }
    const rules = route.handler;
    route.handler = function answer(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const prefer = parsePrefer(request.headers['prefer']);
      return prefer.code === undefined && prefer.example === undefined ? rules.call(this, request, reply) : examples(request, reply);
    };
  });
}

function mockHandler(app: FastifyInstance, route: RouteOptions) {
  const responses = ((route.schema as Schema | undefined)?.['response'] ?? {}) as Record<string, Schema>;
  const statuses = statusesOf(route);
  const success = statuses.find((s) => s >= 200 && s < 300) ?? 200;
  const resolve = (id: string) => app.getSchema(id) as Schema | undefined;
  const routePath = route.url;

  return async function answer(request: FastifyRequest, reply: FastifyReply) {
    const prefer = parsePrefer(request.headers['prefer']);
    const status = prefer.code ?? success;
    if (!statuses.includes(status)) {
      throw new ApiError('VALIDATION_ERROR', 'This operation does not document that status.', `Prefer: code=${status} is not one of ${statuses.join(', ')}`);
    }
    if (status === 204) return reply.code(204).send();
    const examples = examplesOf(responses[String(status)], resolve);
    const names = Object.keys(examples);
    if (names.length === 0) throw new Error(`${route.method} ${routePath}: no example for ${status}`);
    const name = prefer.example ?? names[0]!;
    if (!(name in examples)) {
      throw new ApiError('VALIDATION_ERROR', 'This operation has no example of that name.', `Prefer: example=${name} is not one of ${names.join(', ')}`);
    }
    const body = status >= 400 ? examples[name] : echo(examples[name], request);
    reply.header('x-mock-example', name).code(status);
    if (status === 201) reply.header('location', locationOf(routePath, body));
    return body;
  };
}

/** Where a created resource lives: the collection path plus the record's id field. */
function locationOf(collection: string, body: unknown): string {
  const record = (body ?? {}) as Record<string, unknown>;
  const id = ['payoutId', 'settlementId', 'webhookEndpointId', 'clientId'].map((k) => record[k]).find((v) => typeof v === 'string');
  return id === undefined ? collection : `${collection}/${String(id)}`;
}
