// TRUST_PROXY, the failed-authentication limits and the partner timings are read and checked at
// boot: a bad value stops the process with a message naming the variable and the rule.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';
import { runServiceExpectingFailure } from '../support/service.ts';

describe('TRUST_PROXY', () => {
  test('is off by default, and off when false, off or 0', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    for (const value of ['false', 'off', '0', 'OFF']) assert.equal(loadConfig({ TRUST_PROXY: value }).trustProxy, false);
  });

  test('takes a comma-separated list of addresses, CIDRs, netmasks and proxy-addr names', () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.1.0.0/16,fd00::/8, ::1,loopback, 192.168.0.0/255.255.0.0' }).trustProxy, [
      '10.0.0.1', '10.1.0.0/16', 'fd00::/8', '::1', 'loopback', '192.168.0.0/255.255.0.0',
    ]);
  });

  test('refuses true, a hop count, and anything that is not an address or CIDR, naming the entry', () => {
    const refused: Array<[string, RegExp]> = [
      ['true', /TRUST_PROXY must not be true: that believes X-Forwarded-For from anyone/],
      ['2', /TRUST_PROXY must not be a hop count/],
      ['10.0.0.0/33', /TRUST_PROXY must be false or a comma-separated list .*; "10.0.0.0\/33" is none of these/],
      ['10.0.0.1,proxy.internal', /"proxy.internal" is none of these/],
      ['fd00::/129', /"fd00::\/129" is none of these/],
      ['10.0.0.1,,10.0.0.2', /"" is none of these/],
    ];
    for (const [value, message] of refused) {
      assert.throws(() => loadConfig({ TRUST_PROXY: value }), (error: unknown) => error instanceof ConfigError && message.test(error.message), value);
    }
  });

  test('a bad value stops the boot with exit 78 and the message', async () => {
    const result = await runServiceExpectingFailure({ TRUST_PROXY: '10.0.0.0/33' });
    assert.equal(result.code, 78);
    assert.match(result.output, /Invalid configuration: TRUST_PROXY must be false or a comma-separated list .* \(got "10.0.0.0\/33"\)/);
  });
});

describe('failed-authentication limits', () => {
  test('have defaults and refuse values out of range', () => {
    const config = loadConfig({});
    assert.deepEqual(
      [config.authFailureWindowSeconds, config.authFailuresPerAddressMax, config.authFailuresPerClientMax],
      [300, 50, 20],
    );
    assert.throws(() => loadConfig({ AUTH_FAILURES_PER_ADDRESS_MAX: '0' }), /AUTH_FAILURES_PER_ADDRESS_MAX must be >= 1/);
    assert.throws(() => loadConfig({ AUTH_FAILURE_WINDOW_SECONDS: '5' }), /AUTH_FAILURE_WINDOW_SECONDS must be >= 10/);
  });
});

test('a submission recovery interval under twice the partner timeout is refused at boot, naming both', () => {
  assert.throws(
    () => loadConfig({ PARTNER_TIMEOUT_MS: '20000', PAYOUT_SUBMISSION_RECOVERY_SECONDS: '30' }),
    (error: unknown) => error instanceof ConfigError
      && /PAYOUT_SUBMISSION_RECOVERY_SECONDS \(30\) must be at least twice PARTNER_TIMEOUT_MS \(20000 ms\)/.test(error.message),
  );
  assert.equal(loadConfig({ PARTNER_TIMEOUT_MS: '15000', PAYOUT_SUBMISSION_RECOVERY_SECONDS: '30' }).partnerTimeoutMs, 15000);
  assert.equal(loadConfig({}).payoutSubmissionRecoverySeconds * 1000 >= 2 * loadConfig({}).partnerTimeoutMs, true, 'the defaults agree');
});

describe('metrics and traces', () => {
  test('METRICS_TOKEN is optional, and when given at least 32 printable characters', () => {
    assert.equal(loadConfig({}).metricsToken, undefined);
    assert.equal(loadConfig({ METRICS_TOKEN: 'a'.repeat(32) }).metricsToken, 'a'.repeat(32));
    assert.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), (error: Error) => error instanceof ConfigError && /METRICS_TOKEN/.test(error.message));
    assert.throws(() => loadConfig({ METRICS_TOKEN: `${'a'.repeat(32)} b` }), (error: Error) => error instanceof ConfigError && /METRICS_TOKEN/.test(error.message));
  });

  test('traces are off unless an OTLP endpoint or a traces exporter is named', () => {
    assert.equal(loadConfig({}).tracing, undefined);
    assert.equal(loadConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing, undefined);
    assert.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing, {
      exporter: 'otlp', endpoint: 'http://collector:4318', serviceName: 'settlement-payout-service',
    });
    assert.equal(loadConfig({ OTEL_TRACES_EXPORTER: 'console' }).tracing?.exporter, 'console');
    assert.throws(() => loadConfig({ OTEL_TRACES_EXPORTER: 'zipkin' }), (error: Error) => error instanceof ConfigError && /OTEL_TRACES_EXPORTER/.test(error.message));
    assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), (error: Error) => error instanceof ConfigError && /OTEL_EXPORTER_OTLP_ENDPOINT/.test(error.message));
  });
});

describe('the settlement chain and treasury', () => {
  const chain = { CHAIN_RPC_URL: 'http://127.0.0.1:8545', CHAIN_ID: '31337', CHAIN_TOKEN_ADDRESS: `0x${'1'.repeat(40)}`, CHAIN_TREASURY_KEY: `0x${'2'.repeat(64)}` };
  test('no CHAIN_RPC_URL: no chain; with it, the CHAIN_* variables are read and checked, naming the bad one', () => {
    assert.equal(loadConfig({}).chain, undefined);
    const config = loadConfig(chain);
    assert.deepEqual([config.chain?.rpcUrl, config.chain?.chainId, config.chain?.confirmations, String(config.chain?.treasuryKey)], ['http://127.0.0.1:8545', 31337, 3, '[redacted]']);
    assert.throws(() => loadConfig({ ...chain, CHAIN_ID: 'one' }), (error: unknown) => error instanceof ConfigError && /CHAIN_ID/.test(error.message));
    assert.throws(() => loadConfig({ ...chain, CHAIN_TOKEN_ADDRESS: '0x12' }), (error: unknown) => error instanceof ConfigError && /CHAIN_TOKEN_ADDRESS/.test(error.message));
  });
  test('TREASURY_PEGGED_CURRENCIES: USD by default, a comma-separated list of currency codes', () => {
    assert.deepEqual(loadConfig({}).treasuryPeggedCurrencies, ['USD']);
    assert.deepEqual(loadConfig({ TREASURY_PEGGED_CURRENCIES: 'USD,EUR' }).treasuryPeggedCurrencies, ['USD', 'EUR']);
    assert.throws(() => loadConfig({ TREASURY_PEGGED_CURRENCIES: 'usd' }), (error: unknown) => error instanceof ConfigError && /TREASURY_PEGGED_CURRENCIES/.test(error.message));
  });
});
