import { Type } from 'typebox';
import { StringEnum } from '../platform/schema.ts';

export const TokenRequestBody = Type.Object(
  {
    grant_type: Type.Literal('client_credentials'),
    scope: Type.String({ minLength: 1, description: 'Space-separated scopes: payouts, settlements, member' }),
    client_id: Type.Optional(Type.String({ description: 'Only when not sent with HTTP Basic (RFC 6749 section 2.3.1)' })),
    client_secret: Type.Optional(Type.String({ description: 'Only when not sent with HTTP Basic' })),
  },
  { additionalProperties: false, examples: [{ grant_type: 'client_credentials', scope: 'payouts settlements' }] },
);

export const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Lifetime in seconds' }),
    Scope: Type.String({ description: 'Granted scopes, as the service description spells the key' }),
    scope: Type.String({ description: 'Granted scopes, as RFC 6749 spells the key' }),
  },
  {
    examples: [
      {
        access_token: 'eyJhbGciOiJIUzI1NiIsImtpZCI6IjFhMmIzYzRkIiwidHlwIjoiYXQrand0In0.eyJzdWIiOiJERU1PX1NPVVJDRV8xIn0.c2lnbmF0dXJl',
        token_type: 'Bearer',
        expires_in: 300,
        Scope: 'payouts settlements',
        scope: 'payouts settlements',
      },
    ],
  },
);

export const OAuthErrorBody = Type.Object(
  {
    error: StringEnum(['invalid_request', 'invalid_client', 'unsupported_grant_type', 'invalid_scope']),
    error_description: Type.String(),
  },
  { examples: [{ error: 'invalid_scope', error_description: 'scope "admin" is not allowed to this client' }] },
);
