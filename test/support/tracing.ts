// Test support: traces into memory. Import this first in a test file: the instrumentations can
// only patch pg and undici if they are started before anything loads them.
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTracing } from '../../src/platform/tracing.ts';

export const spans = new InMemorySpanExporter();
export const tracing = startTracing('test', new SimpleSpanProcessor(spans));
