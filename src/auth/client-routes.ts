// A source member manages its own OAuth clients (scope member): an extension in the manner of
// Stripe's API keys. The secret appears only in the answers to create and rotate.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../platform/http/errors.ts';
import { refusalError } from '../platform/http/refusals.ts';
import { noContent, typed } from '../platform/http/typed.ts';
import { refuse } from '../platform/result.ts';
import { memberOf } from './plugin.ts';
import type { ClientView, ClientsService } from './clients.ts';
import { ClientIdParams, clientExample, CreateClientBody, OAuthClient, OAuthClientWithSecret } from './client-schemas.ts';
import { CLIENT_REFUSALS } from './errors.ts';

// the response schema (OAuthClientWithSecret) serialises exactly its fields, as for the list
const withSecret = (client: ClientView, secret: string) => ({ ...client, clientSecret: secret });

export async function clientRoutes(fastify: FastifyInstance, opts: { clients: ClientsService }) {
  const app = typed(fastify);
  const { clients } = opts;
  /** The member's own client, or 404 exactly as for an unknown one. */
  const ownClient = async (memberId: string, clientId: string) => {
    const client = (await clients.list(memberId)).find((c) => c.clientId === clientId);
    if (!client) throw refusalError(CLIENT_REFUSALS, refuse('UNKNOWN_CLIENT'));
    return client;
  };

  app.post(
    '/v2/oauth-clients',
    {
      config: { scope: 'member' },
      schema: {
        summary: 'Create an OAuth client (extension)',
        description: 'Creates a client for the calling member. The secret is returned once, here.',
        tags: ['OAuth clients'],
        body: CreateClientBody,
        response: { 201: OAuthClientWithSecret, ...errorResponses(400, 413, 415) },
      },
    },
    async (request, reply) => {
      const result = await clients.create({ memberId: memberOf(request).memberId, ...request.body });
      if (!result.ok) throw refusalError(CLIENT_REFUSALS, result);
      reply.code(201).header('location', `/v2/oauth-clients/${result.value.client.clientId}`);
      return withSecret(result.value.client, result.value.secret);
    },
  );

  app.get(
    '/v2/oauth-clients',
    {
      config: { scope: 'member' },
      schema: {
        summary: 'List your OAuth clients (extension)',
        tags: ['OAuth clients'],
        response: { 200: Type.Array(OAuthClient, { examples: [[clientExample]] }) },
      },
    },
    async (request) => clients.list(memberOf(request).memberId),
  );

  app.post(
    '/v2/oauth-clients/:clientId/rotate',
    {
      config: { scope: 'member' },
      schema: {
        summary: 'Rotate a client secret (extension)',
        description: 'The old secret stops working at once; tokens already issued run to their expiry (at most 300 s).',
        tags: ['OAuth clients'],
        params: ClientIdParams,
        response: { 200: OAuthClientWithSecret, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => {
      const { clientId } = request.params;
      await ownClient(memberOf(request).memberId, clientId);
      const result = await clients.rotate(clientId);
      if (!result.ok) throw refusalError(CLIENT_REFUSALS, result);
      return withSecret(result.value.client, result.value.secret);
    },
  );

  app.delete(
    '/v2/oauth-clients/:clientId',
    {
      config: { scope: 'member' },
      schema: {
        summary: 'Revoke an OAuth client (extension)',
        description: 'The client gets no new tokens, and its live tokens stop working within 2 seconds on every node.',
        tags: ['OAuth clients'],
        params: ClientIdParams,
        response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const { clientId } = request.params;
      await ownClient(memberOf(request).memberId, clientId);
      const result = await clients.revoke(clientId);
      if (!result.ok) throw refusalError(CLIENT_REFUSALS, result);
      return noContent(reply);
    },
  );
}
