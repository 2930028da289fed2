// npm run admin -- partners ...: connections, partner keys and the service's public key, each
// change validated and audited, run as operators run it against a running service.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startTestService, type TestService } from '../support/service.ts';
import { adminCli } from '../support/admin.ts';
import { json } from '../support/http.ts';
import { newKey, reportBody, sendReport } from '../support/partners.ts';
import { auditFor } from '../../src/audit/repo.ts';

let service: TestService;

const { admin, adminJson } = adminCli(() => service.dataDir);

before(async () => {
  service = await startTestService({ WORKERS: '0' });
});
after(async () => {
  await service.stop();
});

test('service-key prints the key the service serves at /partner-api/v1/keys', async () => {
  const printed = await adminJson(['partners', 'service-key']);
  const served = await json<{ keys: Array<{ kid: string; x: string }> }>(await fetch(`${service.url}/partner-api/v1/keys`));
  assert.equal(printed['keyId'], served.keys[0]!.kid);
  assert.equal(printed['publicKey'], served.keys[0]!.x);
});

test('connect sets a destination member\'s connection, validated and audited with before and after', async () => {
  const first = await adminJson(['partners', 'connect', '--member', 'PARTNER_KE', '--base-url', 'https://partner.example/api/', '--actor', 'ops-alice']);
  assert.deepEqual([first['destinationMemberId'], first['baseUrl'], first['enabled']], ['PARTNER_KE', 'https://partner.example/api', true]);
  await adminJson(['partners', 'connect', '--member', 'PARTNER_KE', '--base-url', 'https://partner.example/api', '--enabled', 'false', '--actor', 'ops-bob']);
  const rows = await adminJson<Array<Record<string, unknown>>>(['partners', 'list']);
  assert.equal(rows.find((r) => r['destinationMemberId'] === 'PARTNER_KE')?.['enabled'], false);
  const audit = await auditFor(service.db, 'member:PARTNER_KE');
  assert.deepEqual(audit.map((a) => [a.actor, a.action]), [['ops-alice', 'partners.connection.set'], ['ops-bob', 'partners.connection.set']]);
  assert.equal(audit[0]!.before, null);
  assert.equal((audit[1]!.before as Record<string, unknown>)['enabled'], true);
  assert.equal((audit[1]!.after as Record<string, unknown>)['enabled'], false);
  assert.ok(audit[1]!.at instanceof Date);

  const badUrl = await admin(['partners', 'connect', '--member', 'PARTNER_KE', '--base-url', 'ftp://x']);
  assert.equal(badUrl.code, 1);
  assert.match(badUrl.stderr, /INVALID_BASE_URL/);
  const source = await admin(['partners', 'connect', '--member', 'DEMO_SOURCE_1', '--base-url', 'https://x.example']);
  assert.equal(source.code, 1);
  assert.match(source.stderr, /UNKNOWN_DESTINATION_MEMBER/);
  const missing = await admin(['partners', 'connect', '--member', 'PARTNER_KE']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--base-url is required/);
  assert.equal((await auditFor(service.db, 'member:PARTNER_KE')).length, 2, 'refused changes leave no audit row');
});

test('add-key and retire-key: a key added is accepted by the intake, a retired one refused; both audited', async () => {
  const key = newKey(`kenya-${randomUUID().slice(0, 8)}`);
  const pemFile = path.join(service.dataDir, 'partner-public.pem');
  await fs.writeFile(pemFile, key.publicKey.export({ format: 'pem', type: 'spki' }) as string);
  const added = await adminJson(['partners', 'add-key', '--member', 'PARTNER_KE', '--key-id', key.keyId, '--public-key-file', pemFile, '--actor', 'ops-alice']);
  assert.equal(added['status'], 'ACTIVE');
  assert.equal(added['publicKey'], key.publicKeyText);
  // accepted: the signature checks, and the refusal is about the payout (not this partner's), not the key
  assert.equal((await sendReport(service.url, key, reportBody(randomUUID()))).status, 404);

  const taken = await admin(['partners', 'add-key', '--member', 'PARTNER_KE', '--key-id', key.keyId, `--public-key=${newKey().publicKeyText}`]);
  assert.match(taken.stderr, /KEY_ID_TAKEN/);
  const invalid = await admin(['partners', 'add-key', '--member', 'PARTNER_KE', '--key-id', 'k-bad', '--public-key', 'not-a-key']);
  assert.match(invalid.stderr, /INVALID_PUBLIC_KEY/);

  const retired = await adminJson(['partners', 'retire-key', key.keyId, '--actor', 'ops-bob']);
  assert.equal(retired['status'], 'RETIRED');
  assert.equal((await sendReport(service.url, key, reportBody(randomUUID()))).status, 401);
  const again = await admin(['partners', 'retire-key', key.keyId]);
  assert.match(again.stderr, /KEY_ALREADY_RETIRED/);

  const keys = await adminJson<Array<Record<string, unknown>>>(['partners', 'keys', '--member', 'PARTNER_KE']);
  assert.deepEqual(keys.map((k) => [k['keyId'], k['status']]), [[key.keyId, 'RETIRED']]);
  const audit = await auditFor(service.db, `key:${key.keyId}`);
  assert.deepEqual(audit.map((a) => [a.actor, a.action]), [['ops-alice', 'partners.key.add'], ['ops-bob', 'partners.key.retire']]);
  assert.equal((audit[1]!.before as Record<string, unknown>)['status'], 'ACTIVE');
  assert.equal((audit[1]!.after as Record<string, unknown>)['status'], 'RETIRED');
});
