// POST /oauth2/token: form body only, client credentials by HTTP Basic or in the body.
// Every failure answers in RFC 6749 section 5.2 form, except the 429 of an address (or client id)
// with too many failed attempts (auth/failures.ts), which is the API's Error body like every 429.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { OAuthErrorBody, TokenRequestBody, TokenResponse } from './schemas.ts';
import type { ClientCredentials, OAuthErrorCode, TokenRequest, TokenService } from './token-service.ts';
import { ApiError, errorResponses } from '../platform/http/errors.ts';
import { failedAuthenticationError } from './plugin.ts';

const NOT_A_FORM = Symbol('not a form body');
const FORM_FIELDS = new Set(['grant_type', 'scope', 'client_id', 'client_secret']);

type Form = Record<string, string>;
type Parsed = { ok: true; form: Form } | { ok: false; description: string };

function parseForm(text: string): Parsed {
  const form: Form = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (name in form) return { ok: false, description: `${name} is repeated` };
    if (!FORM_FIELDS.has(name)) continue; // RFC 6749 3.2: unknown parameters are ignored
    if (value.includes('\u0000')) return { ok: false, description: `${name}: must not contain NUL (U+0000)` };
    form[name] = value;
  }
  return { ok: true, form };
}

/** The body as this context's form parser left it (anything else, NOT_A_FORM or none, is not a form). */
function isParsedForm(body: unknown): body is Parsed {
  return typeof body === 'object' && body !== null && 'ok' in body;
}

/** `client_id:client_secret` from an HTTP Basic header, each form-urlencoded first (RFC 6749 2.3.1). */
export function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | 'malformed' | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(header.trim());
  if (!match) return 'malformed';
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return 'malformed';
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  const clientId = unescape(decoded.slice(0, colon));
  const clientSecret = unescape(decoded.slice(colon + 1));
  if (clientId.includes('\u0000') || clientSecret.includes('\u0000')) return 'malformed';
  return { clientId, clientSecret };
}

function formCredentials(form: Form): TokenRequest['credentials'] {
  const clientId = form['client_id'];
  const clientSecret = form['client_secret'];
  if (clientId === undefined || clientSecret === undefined) return 'missing';
  return { clientId, clientSecret } satisfies ClientCredentials;
}

function oauthError(reply: FastifyReply, error: OAuthErrorCode, description: string) {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  if (error === 'invalid_client') {
    return reply.code(401).header('www-authenticate', 'Basic realm="oauth2"').send({ error, error_description: description });
  }
  return reply.code(400).send({ error, error_description: description });
}

export async function tokenRoutes(app: FastifyInstance, opts: { tokens: TokenService }) {
  // This context reads form bodies only; anything else reaches the handler as NOT_A_FORM.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, parseForm(body as string));
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, NOT_A_FORM));
  // Refusals raised before the handler (a NUL in the query string, a Content-Type Fastify cannot
  // read) take the RFC 6749 shape too; the rest (413, 429, 5xx) go on to the platform's handler,
  // which answers with the Error body this route declares for them.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode;
    if (status !== 400 && status !== 415) throw error;
    const description =
      status === 415 ? 'the body must be application/x-www-form-urlencoded' : error instanceof ApiError ? error.detail : 'the request is malformed';
    request.log.info({ code: 'invalid_request', detail: description }, 'request refused');
    return oauthError(reply, 'invalid_request', description);
  });

  app.post(
    '/oauth2/token',
    {
      schema: {
        summary: 'Get an access token (OAuth 2.0 client credentials)',
        description:
          'Authenticate with HTTP Basic (`client_id:client_secret`) or with `client_id` and `client_secret` in the form ' +
          'body (not both). The token is a signed JWT valid for `expires_in` seconds (300); ask for a new one before it ' +
          'expires. Errors follow RFC 6749 section 5.2, except 429: an address with too many failed attempts ' +
          'gets `RATE_LIMITED` (the Error body) with `Retry-After` until its window ends.',
        tags: ['Authentication'],
        security: [{ clientBasic: [] }],
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenRequestBody,
        response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody, ...errorResponses(413, 429, 500) },
      },
      // The handler checks the form itself so that failures take the RFC 6749 shape.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const body = request.body;
      if (!isParsedForm(body)) return oauthError(reply, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
      if (!body.ok) return oauthError(reply, 'invalid_request', body.description);
      const { form } = body;
      const basic = basicCredentials(request.headers.authorization);
      const inBody = form['client_id'] !== undefined || form['client_secret'] !== undefined;
      if (typeof basic === 'object' && inBody) return oauthError(reply, 'invalid_request', 'send client credentials by one method only');
      const result = await opts.tokens.issue({
        credentials: basic ?? formCredentials(form),
        grantType: form['grant_type'],
        scope: form['scope'],
        address: request.ip,
      });
      if (!result.ok && result.error === 'rate_limited') throw failedAuthenticationError(result.refusal);
      if (!result.ok) return oauthError(reply, result.error, result.description);
      const scope = result.scopes.join(' ');
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return { access_token: result.accessToken, token_type: 'Bearer', expires_in: result.expiresIn, Scope: scope, scope };
    },
  );
}
