// The token signer on its own: signing, verification, key rotation and the verified-token cache.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createTokenSigner, TOKEN_TTL_SECONDS } from '../../src/auth/tokens.ts';

const claims = { memberId: 'DEMO_SOURCE_1', clientId: 'demo-source-1', scopes: ['payouts' as const] };

describe('token signer', () => {
  test('a signed token verifies to its claims', async () => {
    const signer = createTokenSigner(randomBytes(32));
    assert.deepEqual(await signer.verify(await signer.sign(claims)), { ok: true, claims });
  });

  test('a remembered token still expires at exp (plus the 5 s clock tolerance)', async () => {
    let now = 1_800_000_000_000;
    const signer = createTokenSigner(randomBytes(32), undefined, () => now);
    const token = await signer.sign(claims);
    assert.equal((await signer.verify(token)).ok, true); // verified once, now remembered
    now += (TOKEN_TTL_SECONDS + 4) * 1000;
    assert.equal((await signer.verify(token)).ok, true);
    now += 2000;
    assert.deepEqual(await signer.verify(token), { ok: false, reason: 'expired' });
    assert.deepEqual(await signer.verify(token), { ok: false, reason: 'expired' });
  });

  test('after a key rotation, tokens of the previous key verify until they expire; others do not', async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = await createTokenSigner(oldKey).sign(claims);
    const rotated = createTokenSigner(newKey, oldKey);
    assert.equal((await rotated.verify(before)).ok, true);
    assert.equal((await rotated.verify(await rotated.sign(claims))).ok, true);
    const dropped = createTokenSigner(newKey);
    assert.deepEqual(await dropped.verify(before), { ok: false, reason: 'invalid' });
  });
});
