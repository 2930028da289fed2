// Graceful shutdown: a request in flight when the service is told to stop still completes; one
// that arrives behind it on the same connection gets 503 SERVICE_UNAVAILABLE; then all stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestService } from '../support/service.ts';
import { token } from '../support/http.ts';

test('stop() lets the in-flight request finish, refuses what comes after it, then stops', async () => {
  const service = await startTestService();
  const accessToken = await token(service.url, { scope: 'member' });
  const { port } = new URL(service.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  const body = JSON.stringify({ name: 'created during shutdown' });
  socket.write(
    `POST /v2/oauth-clients HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${accessToken}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  );
  await new Promise((r) => setTimeout(r, 200)); // the request is in flight: headers read, body pending
  const stopped = service.stop();
  await new Promise((r) => setTimeout(r, 200));
  socket.write(`${body.slice(5)}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
  const closed = new Promise((resolve) => socket.once('close', resolve));
  await stopped;
  await closed;
  const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
  assert.match(first ?? '', /^HTTP\/1\.1 201 /);
  assert.match(first ?? '', /"clientSecret":"cs_/);
  assert.match(second ?? '', /^HTTP\/1\.1 503 /);
  assert.match(second ?? '', /"code":"SERVICE_UNAVAILABLE"/);
});
