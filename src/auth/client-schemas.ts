import { Type } from 'typebox';
import { StringEnum, Nullable } from '../platform/schema.ts';
import { SCOPES } from './scopes.ts';

const ScopeList = Type.Array(StringEnum(SCOPES), { minItems: 1, maxItems: SCOPES.length, uniqueItems: true });

export const CreateClientBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100, description: 'A label for your own records' })),
    scopes: Type.Optional({ ...ScopeList, description: 'Scopes the client may ask for; default all three' }),
  },
  { additionalProperties: false, examples: [{ name: 'payouts backend', scopes: ['payouts'] }] },
);

export const clientExample = {
  clientId: 'demo-source-1-3f9a0c2b1d4e',
  name: 'payouts backend',
  allowedScopes: ['payouts'],
  createdAt: '2026-11-21T10:00:00.000Z',
  rotatedAt: null,
  revokedAt: null,
};

export const OAuthClient = Type.Object(
  {
    clientId: Type.String(),
    name: Type.String(),
    allowedScopes: ScopeList,
    createdAt: Type.String({ format: 'date-time' }),
    rotatedAt: Nullable(Type.String({ format: 'date-time' })),
    revokedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false, examples: [clientExample] },
);

export const OAuthClientWithSecret = Type.Object(
  {
    ...OAuthClient.properties,
    clientSecret: Type.String({ description: 'Shown only in this answer; store it now' }),
  },
  { additionalProperties: false, examples: [{ ...clientExample, clientSecret: 'cs_Q2hhbmdlIG1lIHRvIGEgcmFuZG9tIHNlY3JldCBub3c' }] },
);

export const ClientIdParams = Type.Object(
  { clientId: Type.String({ pattern: '^[A-Za-z0-9_.-]{3,100}$' }) },
  { additionalProperties: false },
);
