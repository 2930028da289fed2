// The service's pino logger (Fastify's own). Personal data and credentials are redacted.
import pino, { type Logger } from 'pino';

export const LOG_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.authorization',
  '*.client_secret',
  '*.clientSecret',
  '*.secret',
  '*.password',
  '*.sender',
  '*.beneficiary',
  '*.url',
];

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      // the path only: query strings can carry names (payout list filters)
      req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split('?')[0] }),
      err: pino.stdSerializers.err,
    },
  });
}
