// RFC 9421 HTTP Message Signatures with Ed25519, both ways of the partner protocol: the service
// signs its calls to a partner, a partner signs its reports to the service. The signature covers
// the method, the authority and the path, and for a request with a body its Content-Type and its
// RFC 9530 Content-Digest (sha-256), which is checked against the bytes received. `created` and
// `keyid` are required, and a signature older than SIGNATURE_AGE_MAX_SECONDS is refused.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import { createSigner, createVerifier, ExpiredError, httpbis, UnknownKeyError } from 'http-message-signatures';

export const SIGNATURE_AGE_MAX_SECONDS = 300;
/** Clocks of the two sides may differ by this much (a signature `created` in the future by less is taken). */
export const CLOCK_SKEW_MAX_SECONDS = 30;
export const SIGNATURE_ALG = 'ed25519';

const FIELDS_WITHOUT_BODY = ['@method', '@authority', '@path'];
const FIELDS_WITH_BODY = [...FIELDS_WITHOUT_BODY, 'content-type', 'content-digest'];

export interface SigningKey {
  keyId: string;
  privateKey: KeyObject;
}

export interface SignableRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** RFC 9530 Content-Digest of a body, sha-256. */
export function contentDigest(body: string | Buffer): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

function digestMatches(header: string | undefined, body: string | Buffer): boolean {
  const given = header === undefined ? undefined : /(?:^|,)\s*sha-256=:([A-Za-z0-9+/]+={0,2}):/.exec(header)?.[1];
  if (given === undefined) return false;
  const expected = createHash('sha256').update(body).digest();
  const actual = Buffer.from(given, 'base64');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The request's headers with Content-Digest (when it has a body), Signature-Input and Signature added. */
export async function signRequest(request: SignableRequest, key: SigningKey, now = new Date()): Promise<Record<string, string>> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) headers['content-digest'] = contentDigest(request.body);
  const signed = await httpbis.signMessage({
    key: createSigner(key.privateKey, SIGNATURE_ALG, key.keyId),
    fields: request.body === undefined ? FIELDS_WITHOUT_BODY : FIELDS_WITH_BODY,
    params: ['keyid', 'alg', 'created'],
    paramValues: { created: now },
  }, { method: request.method, url: request.url, headers });
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

export interface VerifiableRequest {
  method: string;
  /** Absolute URL as received: scheme, Host header, path. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body's bytes (text) exactly as received; undefined when there is none. */
  rawBody: string | undefined;
}

export type VerifyFailure = 'SIGNATURE_MISSING' | 'UNKNOWN_KEY' | 'SIGNATURE_INVALID' | 'SIGNATURE_EXPIRED' | 'DIGEST_MISMATCH';
export type VerifyResult<K> = { ok: true; key: K } | { ok: false; error: VerifyFailure };

/** What a caller knows of a key id: its public key, and anything it wants back (its owner). */
export type KeyLookup<K> = (keyId: string) => Promise<(K & { publicKey: KeyObject }) | undefined>;

/** Checks a request's signature against the real clock (the library reads Date.now() for the age). */
export async function verifyRequest<K>(request: VerifiableRequest, lookup: KeyLookup<K>): Promise<VerifyResult<K>> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  if (headers['signature'] === undefined || headers['signature-input'] === undefined) return { ok: false, error: 'SIGNATURE_MISSING' };
  const hasBody = request.rawBody !== undefined && request.rawBody !== '';
  if (hasBody && !digestMatches(headers['content-digest'], request.rawBody!)) return { ok: false, error: 'DIGEST_MISMATCH' };
  let found: (K & { publicKey: KeyObject }) | undefined;
  try {
    const verified = await httpbis.verifyMessage({
      async keyLookup(params) {
        if (typeof params.keyid !== 'string') return null;
        found = await lookup(params.keyid);
        return found ? { id: params.keyid, algs: [SIGNATURE_ALG], verify: createVerifier(found.publicKey, SIGNATURE_ALG) } : null;
      },
      all: true,
      maxAge: SIGNATURE_AGE_MAX_SECONDS,
      notAfter: new Date(Date.now() + CLOCK_SKEW_MAX_SECONDS * 1000),
      requiredParams: ['keyid', 'created'],
      requiredFields: hasBody ? FIELDS_WITH_BODY : FIELDS_WITHOUT_BODY,
    }, { method: request.method, url: request.url, headers });
    if (verified === true && found) return { ok: true, key: found };
    return { ok: false, error: found ? 'SIGNATURE_INVALID' : 'UNKNOWN_KEY' };
  } catch (error) {
    if (error instanceof ExpiredError) return { ok: false, error: 'SIGNATURE_EXPIRED' };
    if (error instanceof UnknownKeyError || !found) return { ok: false, error: 'UNKNOWN_KEY' };
    return { ok: false, error: 'SIGNATURE_INVALID' };
  }
}

/** An Ed25519 public key from its 32 raw bytes. */
export function publicKeyFromRaw(raw: Buffer): KeyObject {
  if (raw.length !== 32) throw new RangeError('an Ed25519 public key is 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

/** The 32 raw bytes of an Ed25519 public key. */
export function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  if (jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new TypeError('not an Ed25519 key');
  return Buffer.from(jwk.x, 'base64url');
}

/** Reads a public key given as PEM (SPKI) or as 32 raw bytes in base64 or base64url. */
export function parsePublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) {
    const key = createPublicKey(trimmed);
    if (key.asymmetricKeyType !== 'ed25519') throw new TypeError('the key is not an Ed25519 key');
    return key;
  }
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) throw new TypeError('a public key is PEM or 32 bytes in base64');
  return publicKeyFromRaw(Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

/** Reads an Ed25519 private key given as PEM (PKCS#8). */
export function parsePrivateKey(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new TypeError('the key is not an Ed25519 key');
  return key;
}

/** A key id that names a public key by its contents: a new key gets a new id. */
export function keyIdOf(prefix: string, publicKey: KeyObject): string {
  return `${prefix}-${createHash('sha256').update(rawPublicKey(publicKey)).digest('hex').slice(0, 16)}`;
}

export function generateSigningKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
}
