// Test support: partner keys and signed requests to the service's /partner-api.
import { createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import type { Db } from '../../src/platform/database/pool.ts';
import { createPartnersAdmin } from '../../src/partners/admin.ts';
import { rawPublicKey, signRequest, type SigningKey } from '../../src/partners/signatures.ts';

export interface TestKey extends SigningKey {
  publicKey: KeyObject;
  /** 32 raw bytes, base64url: what an operator registers. */
  publicKeyText: string;
}

export function newKey(keyId = `k-${randomUUID()}`): TestKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  const publicKey = createPublicKey(privateKey);
  return { keyId, privateKey, publicKey, publicKeyText: rawPublicKey(publicKey).toString('base64url') };
}

/** A new ACTIVE key registered for the member, as the admin CLI registers one. */
export async function registeredKey(db: Db, memberId: string): Promise<TestKey> {
  const key = newKey();
  const added = await createPartnersAdmin({ db, actor: 'test' }).addKey(memberId, key.keyId, key.publicKeyText);
  if (!added.ok) throw new Error(`key not added: ${added.error}`);
  return key;
}

export function reportBody(payoutId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { reportId: `r-${randomUUID()}`, payoutId, status: 'PAID', sequence: 1, occurredAt: new Date().toISOString(), ...overrides };
}

/** POSTs a body to a /partner-api path signed with `key`; `tamper` changes the body after signing. */
export async function sendSigned(baseUrl: string, path: string, key: SigningKey, body: unknown, options: { tamper?: (text: string) => string; created?: Date } = {}): Promise<Response> {
  const url = `${baseUrl}${path}`;
  const text = JSON.stringify(body);
  const headers = await signRequest({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: text }, key, options.created);
  return fetch(url, { method: 'POST', headers, body: options.tamper ? options.tamper(text) : text });
}

/** POSTs a report signed with `key`; `tamper` changes the body after signing. */
export function sendReport(baseUrl: string, key: SigningKey, body: unknown, options: { tamper?: (text: string) => string; created?: Date } = {}): Promise<Response> {
  return sendSigned(baseUrl, '/partner-api/v1/reports', key, body, options);
}
