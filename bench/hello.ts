// The ceiling: a bare Fastify hello-world, set up as the service is (its own Node.js process,
// pino logging at the same level to stdout, one access-log line per request).
import Fastify from 'fastify';
import { createLogger } from '../src/platform/logger.ts';

const app = Fastify({ loggerInstance: createLogger(process.env['LOG_LEVEL'] ?? 'info') });
app.get('/', async () => ({ hello: 'world' }));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ msg: 'service started', url: address })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
