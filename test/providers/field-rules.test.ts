// Every sandbox provider's field rules: the documented examples pass, and each local rule
// refuses a wrong value with the field named.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOX_PROVIDERS } from '../../src/providers/catalogue.ts';
import { checkFieldRules } from '../../src/providers/field-rules.ts';
import type { FieldRule, Provider } from '../../src/providers/model.ts';

function setAt(target: Record<string, unknown>, dotted: string, value: unknown) {
  const keys = dotted.split('.');
  let current = target;
  for (const key of keys.slice(0, -1)) current = (current[key] ??= {}) as Record<string, unknown>;
  current[keys.at(-1)!] = value;
}

/** A request holding every field's documented example. */
function exampleRequest(provider: Provider): Record<string, unknown> {
  const request: Record<string, unknown> = { sender: { firstName: 'Ana', lastName: 'Diaz' }, beneficiary: { firstName: 'Luis', lastName: 'Perez' } };
  for (const field of provider.fields) setAt(request, field.name, field.example);
  return request;
}

function provider(id: string): Provider {
  return SANDBOX_PROVIDERS.find((p) => p.payoutProviderId === id)!;
}

function expectViolation(id: string, changes: Record<string, unknown>, field: string, rule: RegExp) {
  const p = provider(id);
  const request = exampleRequest(p);
  for (const [path, value] of Object.entries(changes)) setAt(request, path, value);
  const result = checkFieldRules(p.fields, request, p.payoutMethods[0]!);
  assert.ok(result, `${id}: ${JSON.stringify(changes)} passed`);
  assert.equal(result.field, field);
  assert.match(result.rule, rule);
}

describe('the documented examples', () => {
  for (const p of SANDBOX_PROVIDERS) {
    test(`${p.payoutProviderId}: a request made of the field examples passes for each method`, () => {
      for (const method of p.payoutMethods) assert.equal(checkFieldRules(p.fields, exampleRequest(p), method), undefined);
    });
  }
});

describe('local rules', () => {
  test('MX_SPEI: a CLABE with a wrong check digit, or of the wrong length', () => {
    expectViolation('MX_SPEI', { 'beneficiary.accountNumber': '032180000118359718' }, 'beneficiary.accountNumber', /check digit/);
    expectViolation('MX_SPEI', { 'beneficiary.accountNumber': '03218000011835971' }, 'beneficiary.accountNumber', /pattern/);
    expectViolation('MX_SPEI', { 'beneficiary.accountNumber': undefined }, 'beneficiary.accountNumber', /required/);
  });
  test('MX_CASH: identity document, phone and sender date of birth', () => {
    expectViolation('MX_CASH', { 'beneficiary.idType': undefined }, 'beneficiary.idType', /required/);
    expectViolation('MX_CASH', { 'beneficiary.idType': 'DRIVING_LICENCE' }, 'beneficiary.idType', /one of INE, PASSPORT/);
    expectViolation('MX_CASH', { 'beneficiary.idNumber': 'abc' }, 'beneficiary.idNumber', /pattern/);
    expectViolation('MX_CASH', { 'beneficiary.phone': '5512345678' }, 'beneficiary.phone', /pattern/);
    expectViolation('MX_CASH', { 'sender.dateOfBirth': '1985-02-30' }, 'sender.dateOfBirth', /calendar date/);
  });
  test('BR_PIX: key type, key valid for its type, CPF/CNPJ check digits', () => {
    expectViolation('BR_PIX', { 'beneficiary.pixKey': '52998224724' }, 'beneficiary.pixKey', /PIX key/);
    expectViolation('BR_PIX', { 'beneficiary.pixType': 'EMAIL' }, 'beneficiary.pixKey', /PIX key/);
    expectViolation('BR_PIX', { 'beneficiary.pixType': 'IBAN' }, 'beneficiary.pixType', /one of/);
    expectViolation('BR_PIX', { 'beneficiary.taxId': '11222333000182' }, 'beneficiary.taxId', /CPF .* or CNPJ/);
    const p = provider('BR_PIX');
    for (const [pixType, pixKey] of [['EMAIL', 'ana@example.com.br'], ['PHONE', '+5511987654321'], ['CNPJ', '11222333000181'], ['EVP', '123e4567-e89b-12d3-a456-426614174000']]) {
      const request = exampleRequest(p);
      setAt(request, 'beneficiary.pixType', pixType);
      setAt(request, 'beneficiary.pixKey', pixKey);
      assert.equal(checkFieldRules(p.fields, request, 'BANK_ACCOUNT'), undefined, pixType);
    }
  });
  test('IN_IMPS: IFSC and account number', () => {
    expectViolation('IN_IMPS', { 'beneficiary.branchNumber': 'SBIN1001234' }, 'beneficiary.branchNumber', /IFSC/);
    expectViolation('IN_IMPS', { 'beneficiary.accountNumber': '12345' }, 'beneficiary.accountNumber', /pattern/);
  });
  test('NG_NIP: the NUBAN check digit is tied to the bank code', () => {
    expectViolation('NG_NIP', { 'beneficiary.branchNumber': '011' }, 'beneficiary.accountNumber', /NUBAN/);
    expectViolation('NG_NIP', { 'beneficiary.accountNumber': '0123456786' }, 'beneficiary.accountNumber', /NUBAN/);
    expectViolation('NG_NIP', { 'beneficiary.branchNumber': '58' }, 'beneficiary.branchNumber', /pattern/);
  });
  test('wallets: mobile numbers in the local format', () => {
    expectViolation('PH_GCASH', { 'beneficiary.phone': '+639171234' }, 'beneficiary.phone', /pattern/);
    expectViolation('KE_MPESA', { 'beneficiary.phone': '+254812345678' }, 'beneficiary.phone', /pattern/);
    expectViolation('GH_MOMO', { 'beneficiary.phone': '+233941234567' }, 'beneficiary.phone', /pattern/);
  });
  test('a rule limited to some payout methods is skipped for the others', () => {
    const rules: FieldRule[] = [{ name: 'beneficiary.phone', type: 'string', required: true, payoutMethods: ['WALLET'], description: 'x', example: '1' }];
    assert.equal(checkFieldRules(rules, {}, 'BANK_ACCOUNT'), undefined);
    assert.deepEqual(checkFieldRules(rules, {}, 'WALLET'), { field: 'beneficiary.phone', rule: 'is required by this payout provider' });
  });
  test('a non-string value is refused', () => {
    expectViolation('PH_GCASH', { 'beneficiary.phone': 639171234567 }, 'beneficiary.phone', /string/);
  });
});
