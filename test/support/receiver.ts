// Test support: a webhook receiver on loopback that records every request it gets and answers
// as the test tells it (a status, after a delay, or never).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** The request's path (one receiver can stand for several endpoints on the same host and port). */
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export type Answer = { status: number; delayMs?: number } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** How the next requests are answered (default 200 at once). */
  answer: (request: Received) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => ({ status: 200 }),
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const got: Received = { path: request.url ?? '', headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      receiver.received.push(got);
      const answer = receiver.answer(got);
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      setTimeout(() => response.writeHead(answer.status, { 'content-type': 'text/plain' }).end('ok'), answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}

/** A loopback port with nothing listening on it (connections are refused). */
export async function deadUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/hooks`;
}

export interface RegisteredEndpoint {
  webhookEndpointId: string;
  secret: string;
  url: string;
}

/** Registers a webhook endpoint for the token's member (scope member); 201 expected. */
export async function registerEndpoint(baseUrl: string, accessToken: string, url: string, eventTypes?: string[]): Promise<RegisteredEndpoint> {
  const response = await fetch(`${baseUrl}/v2/webhook-endpoints`, {
    method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, ...(eventTypes ? { eventTypes } : {}) }),
  });
  if (response.status !== 201) throw new Error(`endpoint registration failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as RegisteredEndpoint;
}
