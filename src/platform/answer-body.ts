// The body of an answer from outside (a partner, a price feed), read with a limit: a party that
// sends more than it should is not read to the end, and what is not JSON is said so.
import type { Dispatcher } from 'undici';

/** The body parsed as JSON; `unreadable(why)` makes the error thrown when it is larger than bytesMax or not JSON. */
export async function readJsonAnswer(body: Dispatcher.ResponseData['body'], bytesMax: number, unreadable: (why: string) => Error): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > bytesMax) {
      body.destroy();
      throw unreadable(`is larger than ${bytesMax} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw unreadable('is not JSON');
  }
}
