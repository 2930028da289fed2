// The reference price feed: a separate process that speaks the price feed protocol
// (docs/rate-feed.md) with a few pairs at fixed mids, for tests, demos and as a template for an
// adapter in front of a real feed. `npm run price-feed [-- --port 8095 --host 127.0.0.1]`
// (PRICE_FEED_PORT, PRICE_FEED_HOST). A control API sets a mid and makes the feed misbehave:
//   PUT  /control/pairs/{base}/{quote}  {"mid": "17.5"}    set (or add) a pair's mid
//   DELETE /control/pairs/{base}/{quote}                  the feed no longer knows the pair
//   POST /control/behaviour  {"answer": "QUOTE" | "ERROR" | "HANG" | "GARBAGE" | "NUMBER_MID" | "WRONG_PAIR",
//                             "asOfOffsetMs": -93000, "errorStatus": 500}   every later answer (replaces the last)
//   GET  /control/requests                                {"rates": n}: quote requests served so far
import http from 'node:http';
import { parseArgs } from 'node:util';

export const DEFAULT_MIDS: Record<string, string> = {
  'USD/MXN': '17.0523',
  'USD/BRL': '5.4210',
  'USD/PHP': '58.3150',
  'USD/INR': '84.1020',
  'USD/NGN': '1548.25',
  'USD/KES': '129.20',
  'USD/GHS': '15.43',
};

export interface FeedBehaviour {
  /** QUOTE: the protocol's answer; ERROR: errorStatus; HANG: no answer ever; GARBAGE: not JSON;
   *  NUMBER_MID: the mid as a JSON number; WRONG_PAIR: a quote for another pair. */
  answer: 'QUOTE' | 'ERROR' | 'HANG' | 'GARBAGE' | 'NUMBER_MID' | 'WRONG_PAIR';
  /** asOf = now + this (negative: a quote that old; positive: dated in the future). */
  asOfOffsetMs: number;
  errorStatus: number;
}

const ANSWERS = new Set(['QUOTE', 'ERROR', 'HANG', 'GARBAGE', 'NUMBER_MID', 'WRONG_PAIR']);
const BODY_BYTES_MAX = 4096;
const NORMAL: FeedBehaviour = { answer: 'QUOTE', asOfOffsetMs: 0, errorStatus: 500 };

function send(response: http.ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(request: http.IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) {
    text += String(chunk);
    if (text.length > BODY_BYTES_MAX) throw new Error('body too large');
  }
  return text === '' ? {} : JSON.parse(text);
}

function behaviourOf(body: unknown): FeedBehaviour | undefined {
  const b = { ...NORMAL, ...(body as Partial<FeedBehaviour>) };
  if (!ANSWERS.has(b.answer) || !Number.isInteger(b.asOfOffsetMs) || !Number.isInteger(b.errorStatus)) return undefined;
  return b.errorStatus >= 100 && b.errorStatus <= 599 ? b : undefined;
}

export function createPriceFeedServer(log: (entry: object) => void) {
  const mids = new Map(Object.entries(DEFAULT_MIDS));
  let behaviour = NORMAL;
  let served = 0;

  function rates(url: URL, response: http.ServerResponse) {
    const base = url.searchParams.get('base') ?? '';
    const quote = url.searchParams.get('quote') ?? '';
    if (!/^[A-Z]{3}$/.test(base) || !/^[A-Z]{3}$/.test(quote)) return send(response, 400, { error: 'base and quote: three capital letters' });
    served++;
    switch (behaviour.answer) {
      case 'HANG': return; // the socket stays open, unanswered
      case 'ERROR': return send(response, behaviour.errorStatus, { error: 'the reference feed was told to fail' });
      case 'GARBAGE': return response.writeHead(200, { 'content-type': 'application/json' }).end('<html>upstream hiccup</html>');
      default: break;
    }
    const mid = mids.get(`${base}/${quote}`);
    if (mid === undefined) return send(response, 404, { base, quote, error: 'UNKNOWN_PAIR' });
    const asOf = new Date(Date.now() + behaviour.asOfOffsetMs).toISOString();
    if (behaviour.answer === 'NUMBER_MID') return send(response, 200, { base, quote, mid: Number(mid), asOf });
    if (behaviour.answer === 'WRONG_PAIR') return send(response, 200, { base: quote, quote: base, mid, asOf });
    return send(response, 200, { base, quote, mid, asOf });
  }

  async function control(method: string, url: URL, request: http.IncomingMessage, response: http.ServerResponse) {
    const pair = /^\/control\/pairs\/([A-Z]{3})\/([A-Z]{3})$/.exec(url.pathname);
    if (pair && method === 'PUT') {
      const { mid } = (await readBody(request)) as { mid?: unknown };
      if (typeof mid !== 'string') return send(response, 400, { error: 'mid: decimal text' });
      mids.set(`${pair[1]}/${pair[2]}`, mid);
      return send(response, 200, { base: pair[1], quote: pair[2], mid });
    }
    if (pair && method === 'DELETE') {
      mids.delete(`${pair[1]}/${pair[2]}`);
      return send(response, 200, {});
    }
    if (url.pathname === '/control/behaviour' && method === 'POST') {
      const next = behaviourOf(await readBody(request));
      if (!next) return send(response, 400, { error: 'not a behaviour' });
      behaviour = next;
      log({ msg: 'behaviour', behaviour });
      return send(response, 200, behaviour);
    }
    if (url.pathname === '/control/requests' && method === 'GET') return send(response, 200, { rates: served });
    return send(response, 404, { error: 'no such control' });
  }

  return http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://feed');
    const answer = url.pathname === '/rates' && request.method === 'GET'
      ? Promise.resolve(rates(url, response))
      : url.pathname.startsWith('/control/') ? control(request.method ?? '', url, request, response) : Promise.resolve(send(response, 404, { error: 'not found' }));
    answer.catch((error: unknown) => send(response, 400, { error: (error as Error).message }));
  });
}

if (import.meta.main) {
  const log = (entry: object) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
  const { values } = parseArgs({ args: process.argv.slice(2), options: { port: { type: 'string' }, host: { type: 'string' } } });
  const port = Number(values.port ?? process.env['PRICE_FEED_PORT'] ?? 8095);
  const host = values.host ?? process.env['PRICE_FEED_HOST'] ?? '127.0.0.1';
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    log({ msg: 'price feed did not start', err: '--port is 0 to 65535' });
    process.exit(1);
  }
  const server = createPriceFeedServer(log);
  server.listen(port, host, () => {
    log({ msg: 'price feed started', url: `http://${host}:${(server.address() as { port: number }).port}` });
  });
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
