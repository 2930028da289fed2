// The money module: exact parsing of JSON numbers, minor units, half-up rounding.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { convert, decimalText, decimalToJsonNumber, divideHalfUp, formatMinor, parseAmount, percentageOf, toJsonNumber } from '../../src/platform/money.ts';

describe('parsing amounts', () => {
  test('a JSON number is read through its shortest decimal text', () => {
    assert.deepEqual(parseAmount(0.1, 'USD'), { ok: true, minor: 10n });
    assert.deepEqual(parseAmount(1234.5, 'MXN'), { ok: true, minor: 123450n });
    assert.deepEqual(parseAmount(999999999.99, 'USD'), { ok: true, minor: 99999999999n });
    assert.deepEqual(parseAmount(0.29, 'USD'), { ok: true, minor: 29n }); // 0.29 * 100 is 28.999… in floating point
    assert.deepEqual(parseAmount(1e21, 'USD'), { ok: true, minor: 100000000000000000000000n });
    assert.deepEqual(parseAmount(1e-7, 'USDC'), { ok: false, error: 'TOO_MANY_DECIMALS' });
  });
  test('more decimals than the currency has is refused; trailing zeros are not decimals', () => {
    assert.deepEqual(parseAmount(10.005, 'USD'), { ok: false, error: 'TOO_MANY_DECIMALS' });
    assert.deepEqual(parseAmount(100.5, 'JPY'), { ok: false, error: 'TOO_MANY_DECIMALS' });
    assert.deepEqual(parseAmount(100, 'JPY'), { ok: true, minor: 100n });
    assert.deepEqual(parseAmount('12.50', 'USD'), { ok: true, minor: 1250n });
    assert.deepEqual(parseAmount('12.500', 'USD'), { ok: true, minor: 1250n });
  });
  test('unknown currencies and non-numbers are refused', () => {
    assert.deepEqual(parseAmount(1, 'XXX'), { ok: false, error: 'UNKNOWN_CURRENCY' });
    assert.deepEqual(parseAmount(Number.NaN, 'USD'), { ok: false, error: 'NOT_A_NUMBER' });
    assert.deepEqual(parseAmount('1,00', 'USD'), { ok: false, error: 'NOT_A_NUMBER' });
  });
  test('exponent forms expand to plain digits', () => {
    assert.equal(decimalText(1.5e-7), '0.00000015');
    assert.equal(decimalText(2.5e22), '25000000000000000000000');
    assert.equal(decimalText('1.25E+2'), '125');
  });
});

describe('formatting', () => {
  test('minor units back to decimal text and JSON numbers', () => {
    assert.equal(formatMinor(123450n, 'MXN'), '1234.50');
    assert.equal(formatMinor(5n, 'USD'), '0.05');
    assert.equal(formatMinor(-5n, 'USD'), '-0.05');
    assert.equal(formatMinor(120n, 'JPY'), '120');
    assert.equal(toJsonNumber(29n, 'USD'), 0.29);
    assert.equal(JSON.stringify({ a: toJsonNumber(99999999999n, 'USD') }), '{"a":999999999.99}');
    // 15 significant digits are exact; beyond that no JSON number has the value: refused, never rounded
    assert.equal(toJsonNumber(999999999999999n, 'USD'), 9999999999999.99);
    assert.equal(toJsonNumber(-999999999999999n, 'JPY'), -999999999999999);
    assert.throws(() => toJsonNumber(1234567890123456789n, 'USD'), /12345678901234567\.89 has no exact JSON number/);
    assert.throws(() => toJsonNumber(9007199254740993n, 'JPY'), /no exact JSON number/);
  });
});

describe('stored decimals as JSON numbers', () => {
  test('a NUMERIC text becomes the JSON number with exactly its value, trailing zeros or not', () => {
    assert.equal(decimalToJsonNumber('1234.5700'), 1234.57);
    assert.equal(decimalToJsonNumber('16.967039'), 16.967039);
    assert.equal(decimalToJsonNumber('0.0000'), 0);
    assert.equal(decimalToJsonNumber('500000'), 500000);
    assert.equal(decimalToJsonNumber('999999999.99'), 999999999.99);
  });
  test('text that no JSON number holds exactly is refused, not rounded', () => {
    assert.throws(() => decimalToJsonNumber('12345678901234567.89'), /no exact JSON number/);
    assert.throws(() => decimalToJsonNumber('0.1000000000000000055511151231257827'), /no exact JSON number/);
    assert.throws(() => decimalToJsonNumber('abc'), /no exact JSON number/);
  });
});

describe('rounding', () => {
  test('half-up, away from zero on ties', () => {
    assert.equal(divideHalfUp(5n, 2n), 3n);
    assert.equal(divideHalfUp(4n, 3n), 1n);
    assert.equal(divideHalfUp(-5n, 2n), -3n);
    assert.equal(divideHalfUp(7n, 2n), 4n);
  });
  test('percentage fees on awkward amounts, 2 and 0 minor digits', () => {
    assert.equal(percentageOf(1005n, '1.5'), 15n); // 10.05 * 1.5% = 0.15075 -> 0.15
    assert.equal(percentageOf(1010n, '0.5'), 5n); // 10.10 * 0.5% = 0.0505 -> 0.05
    assert.equal(percentageOf(3333n, '1.5'), 50n); // 33.33 * 1.5% = 0.49995 -> 0.50
    assert.equal(percentageOf(100n, '0.5'), 1n); // 1.00 * 0.5% = 0.005 -> 0.01 (tie rounds up)
    assert.equal(percentageOf(150n, '1'), 2n); // 150 JPY * 1% = 1.5 -> 2
    assert.equal(percentageOf(149n, '1'), 1n); // 1.49 -> 1
    // more decimals than integer digits (the sandbox's IN_IMPS charges 0.25%)
    assert.equal(percentageOf(100000n, '0.25'), 250n); // 1,000.00 * 0.25% = 2.50
    assert.equal(percentageOf(100001n, '0.125'), 125n); // 1,000.01 * 0.125% = 1.2500125 -> 1.25
    assert.equal(percentageOf(20000n, '12.5'), 2500n);
    assert.equal(percentageOf(20000n, '0.0625'), 13n); // 200.00 * 0.0625% = 0.125 -> 0.13
  });
  test('conversion at a rate between currencies of different minor units', () => {
    assert.equal(convert(10000n, 'USD', '17.2345', 'MXN'), 172345n); // 100.00 USD -> 1723.45 MXN
    assert.equal(convert(1n, 'USD', '0.125', 'MXN'), 0n); // 0.01 * 0.125 = 0.00125 -> 0.00
    assert.equal(convert(4n, 'USD', '0.125', 'MXN'), 1n); // 0.005 -> 0.01 (tie up)
    assert.equal(convert(10000n, 'USD', '149.555', 'JPY'), 14956n); // 14955.5 -> 14956
  });
});
