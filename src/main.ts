// Entry point: `npm start`. Reads the configuration, starts the service, and shuts it down
// gracefully on SIGTERM or SIGINT (stop accepting, finish in-flight requests and jobs, stop the
// embedded PostgreSQL), within SHUTDOWN_TIMEOUT_MS.
import module from 'node:module';
import { loadConfigOrExit, type Config } from './platform/config.ts';
import { createLogger } from './platform/logger.ts';
import type { RunningService } from './service.ts';

// Node keeps compiled (and type-stripped) modules in a cache directory, so that a restart, and
// mock mode's start, skip most of the module loading.
module.enableCompileCache?.();

const config: Config = loadConfigOrExit();

const log = createLogger(config.logLevel);
// Traces start before anything loads pg or undici (both imported below), so that they can be patched.
const tracingConfig = config.tracing;
const tracing = tracingConfig === undefined
  ? undefined
  : await import('./platform/tracing.ts').then(({ startTracing, processorFor }) => startTracing(tracingConfig.serviceName, processorFor(tracingConfig)));
const { isDatabaseUnavailable } = await import('./platform/database/pool.ts');
// A database outage must not end the process: the pools reconnect and the job runners are
// restarted, so a stray rejection of a lost connection is logged and survived. Anything else is
// a bug whose consequences are unknown, and ends the process as Node would.
process.on('unhandledRejection', (reason: unknown) => {
  if (isDatabaseUnavailable(reason)) {
    log.error({ err: reason }, 'unhandled rejection while the database was unreachable; continuing');
    return;
  }
  log.fatal({ err: reason }, 'unhandled rejection');
  log.flush();
  process.exit(1);
});
try {
  // mock mode loads only the HTTP application (no database, no workers): it starts in well under a second
  const service: Pick<RunningService, 'url' | 'stop'> = config.mode === 'mock'
    ? await (await import('./mock/server.ts')).startMockServer(config, log)
    : await (await import('./service.ts')).startService(config, log);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error('shutdown took longer than SHUTDOWN_TIMEOUT_MS; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    service.stop().then(() => tracing?.shutdown()).then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // announced once the signal handlers are in place, and at once: supervisors and tests wait for it
  log.info({ url: service.url, mode: config.mode, workers: config.workers }, 'service started');
  log.flush();
} catch (error) {
  if (error instanceof Error && error.name === 'StartupError') log.fatal(error.message);
  else log.fatal({ err: error }, 'service failed to start');
  process.exit(1);
}
