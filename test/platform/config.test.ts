// Configuration rules that involve more than one variable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';

test('a submission recovery interval under twice the partner timeout is refused at boot, naming both', () => {
  assert.throws(
    () => loadConfig({ PARTNER_TIMEOUT_MS: '20000', PAYOUT_SUBMISSION_RECOVERY_SECONDS: '30' }),
    (error: unknown) => error instanceof ConfigError
      && /PAYOUT_SUBMISSION_RECOVERY_SECONDS \(30\) must be at least twice PARTNER_TIMEOUT_MS \(20000 ms\)/.test(error.message),
  );
  assert.equal(loadConfig({ PARTNER_TIMEOUT_MS: '15000', PAYOUT_SUBMISSION_RECOVERY_SECONDS: '30' }).partnerTimeoutMs, 15000);
  assert.equal(loadConfig({}).payoutSubmissionRecoverySeconds * 1000 >= 2 * loadConfig({}).partnerTimeoutMs, true, 'the defaults agree');
});
