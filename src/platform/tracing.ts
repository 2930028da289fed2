// OpenTelemetry traces, off unless configured (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER).
// Started before pg and undici are loaded (main.ts imports them after this), so that the
// instrumentations can patch them: a request is a server span (@fastify/otel) with a child span
// per SQL statement (pg), and every outgoing undici call (partner rails, webhook deliveries)
// is a client span whose W3C traceparent goes out with it.
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BatchSpanProcessor, ConsoleSpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { TracingConfig } from './config.ts';

/** Spans queued for export at most; beyond it new spans are dropped rather than memory grown. */
const EXPORT_QUEUE_SPANS_MAX = 2048;
/** Health checks and scrapes are not traced: they would drown the requests that matter. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface Tracing {
  /** Exports what is queued, then stops. */
  shutdown(): Promise<void>;
}

export function startTracing(serviceName: string, processor: SpanProcessor): Tracing {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [processor],
  });
  provider.register(); // W3C trace context propagator and the AsyncLocalStorage context manager
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new FastifyOtelInstrumentation({ registerOnInitialization: true, ignorePaths: (route) => UNTRACED_PATHS.has(route.url) }),
      // statements within a traced operation only (not the workers' polling), no span per pool
      // checkout, and never a statement's values
      new PgInstrumentation({ ignoreConnectSpans: true, enhancedDatabaseReporting: false, requireParentSpan: true }),
      new UndiciInstrumentation(),
    ],
  });
  return {
    async shutdown() {
      unregister();
      await provider.shutdown();
    },
  };
}

/** The exporter the configuration names: OTLP over HTTP (the default once an endpoint is set) or the console. */
export function processorFor(config: TracingConfig): SpanProcessor {
  const exporter = config.exporter === 'console'
    ? new ConsoleSpanExporter()
    : new OTLPTraceExporter(config.endpoint === undefined ? {} : { url: `${config.endpoint.replace(/\/$/, '')}/v1/traces` });
  return new BatchSpanProcessor(exporter, { maxQueueSize: EXPORT_QUEUE_SPANS_MAX });
}
