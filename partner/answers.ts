// The reference partner's HTTP answers and the parts of a behaviour every protocol call obeys.
import type { Behaviour } from './server.ts';

export class HttpAnswer {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    this.status = status;
    this.body = body;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const HANG = () => new Promise<never>(() => undefined);

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpAnswer(400, { code: 'VALIDATION_ERROR', detail: 'body: malformed JSON' });
  }
}

/** Latency first, then an error status or a hang before anything is recorded; undefined: go on. */
export async function before(behaviour: Behaviour): Promise<HttpAnswer | undefined> {
  if (behaviour.latencyMs) await sleep(behaviour.latencyMs);
  if (behaviour.errorStatus) return new HttpAnswer(behaviour.errorStatus, { code: 'UNAVAILABLE' });
  if (behaviour.hang === 'BEFORE_RECEIVING') return HANG();
  return undefined;
}
