// Check-digit validators: valid values worked out by hand from each scheme's rule (arithmetic in the
// comments, not taken from the code under test), commonly published examples, and the failure cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PIX_KEY_TYPES,
  clabeCheckDigit,
  cnpjWithCheckDigits,
  cpfWithCheckDigits,
  isValidClabe,
  isValidCnpj,
  isValidCpf,
  isValidIfsc,
  isValidNuban,
  isValidPixKey,
  nubanCheckDigit,
} from '../../src/providers/check-digits.ts';

// The same string with its last digit replaced by the next digit (so the check digit is wrong).
function bumpLast(value: string): string {
  return value.slice(0, -1) + String((Number(value.at(-1)) + 1) % 10);
}

// Non-string input arriving from untyped JSON: the validators must answer false, not throw.
const NOT_STRINGS: unknown[] = [undefined, null, 123, 0, {}, [], true];

test('CLABE: hand-computed and published valid values pass', () => {
  // 01234567890123456 with weights 3,7,1...: products mod 10 are 0,7,2,9,8,5,8,9,8,7,0,1,6,1,4,5,2 = 82 -> (10-2)%10 = 8.
  assert.equal(clabeCheckDigit('01234567890123456'), 8);
  assert.equal(isValidClabe('012345678901234568'), true);
  // Published example 032180000118359719: products mod 10 are 0,1,2,3,6,0,0,0,0,3,7,8,9,5,9,1,7 = 61 -> 9.
  assert.equal(clabeCheckDigit('03218000011835971'), 9);
  assert.equal(isValidClabe('032180000118359719'), true);
});

test('CLABE: wrong check digit, wrong length and non-digits fail', () => {
  for (const valid of ['012345678901234568', '032180000118359719']) {
    assert.equal(isValidClabe(bumpLast(valid)), false, bumpLast(valid));
    assert.equal(isValidClabe(valid.slice(0, 17)), false);
    assert.equal(isValidClabe(`${valid}0`), false);
  }
  // Every other check digit is wrong too.
  for (let d = 0; d <= 9; d++) assert.equal(isValidClabe(`03218000011835971${d}`), d === 9);
  assert.equal(isValidClabe(''), false);
  assert.equal(isValidClabe('03218000011835971X'), false);
  assert.equal(isValidClabe('0321 8000011835971'), false);
  assert.equal(isValidClabe(' 032180000118359719'), false);
  assert.equal(isValidClabe('032180000118359719\n'), false);
  assert.equal(isValidClabe('０32180000118359719'), false); // full-width zero
  for (const value of NOT_STRINGS) assert.equal(isValidClabe(value as string), false);
});

test('CPF: hand-computed and published valid values pass', () => {
  // 529982247: d1 sum 5*10+2*9+9*8+9*7+8*6+2*5+2*4+4*3+7*2 = 295, 2950 mod 11 = 2;
  // d2 sum 5*11+2*10+9*9+9*8+8*7+2*6+2*5+4*4+7*3+2*2 = 358, 3580 mod 11 = 5. Published example 52998224725.
  assert.equal(cpfWithCheckDigits('529982247'), '52998224725');
  assert.equal(isValidCpf('52998224725'), true);
  // 111444777: d1 sum 162, 1620 mod 11 = 3; d2 sum 204, 2040 mod 11 = 5. Published example 11144477735.
  assert.equal(cpfWithCheckDigits('111444777'), '11144477735');
  assert.equal(isValidCpf('11144477735'), true);
  // 000000006: d1 sum 6*2 = 12, 120 mod 11 = 10 -> 0; d2 sum 6*3 + 0*2 = 18, 180 mod 11 = 4.
  assert.equal(cpfWithCheckDigits('000000006'), '00000000604');
  assert.equal(isValidCpf('00000000604'), true);
});

test('CPF: a wrong check digit, wrong length, punctuation and non-digits fail', () => {
  assert.equal(isValidCpf('52998224735'), false); // first check digit wrong
  assert.equal(isValidCpf('52998224726'), false); // second check digit wrong
  assert.equal(isValidCpf(bumpLast('11144477735')), false);
  assert.equal(isValidCpf('5299822472'), false);
  assert.equal(isValidCpf('529982247250'), false);
  assert.equal(isValidCpf(''), false);
  assert.equal(isValidCpf('529.982.247-25'), false);
  assert.equal(isValidCpf('5299822472a'), false);
  assert.equal(isValidCpf('-5299822472'), false);
  for (const value of NOT_STRINGS) assert.equal(isValidCpf(value as string), false);
});

test('CPF: the ten repeated-digit sequences fail even though their check digits add up', () => {
  for (let d = 0; d <= 9; d++) {
    const repeated = String(d).repeat(11);
    assert.equal(cpfWithCheckDigits(String(d).repeat(9)), repeated); // the checksum alone would accept them
    assert.equal(isValidCpf(repeated), false, repeated);
  }
});

test('CNPJ: hand-computed and published valid values pass', () => {
  // 112223330001: d1 sum 5+4+6+4+18+24+21+18+0+0+0+2 = 102, 102 mod 11 = 3 -> 8;
  // d2 sum 6+5+8+6+4+27+24+21+0+0+0+3+16 = 120, 120 mod 11 = 10 -> 1. Published example 11222333000181.
  assert.equal(cnpjWithCheckDigits('112223330001'), '11222333000181');
  assert.equal(isValidCnpj('11222333000181'), true);
  // 000000000001: d1 sum 1*2 = 2 -> 9; d2 sum 1*3 + 9*2 = 21, mod 11 = 10 -> 1. (Published: 00000000000191.)
  assert.equal(cnpjWithCheckDigits('000000000001'), '00000000000191');
  assert.equal(isValidCnpj('00000000000191'), true);
  // r < 2 -> 0. 000000000031: d1 sum 3*3 + 1*2 = 11, r 0 -> 0; d2 sum 3*4 + 1*3 + 0*2 = 15, r 4 -> 7.
  assert.equal(cnpjWithCheckDigits('000000000031'), '00000000003107');
  assert.equal(isValidCnpj('00000000003107'), true);
  // 000000000006: d1 sum 6*2 = 12, r 1 -> 0; d2 sum 6*3 + 0*2 = 18, r 7 -> 4.
  assert.equal(cnpjWithCheckDigits('000000000006'), '00000000000604');
  assert.equal(isValidCnpj('00000000000604'), true);
});

test('CNPJ: a wrong check digit, wrong length, punctuation and non-digits fail', () => {
  assert.equal(isValidCnpj('11222333000191'), false); // first check digit wrong
  assert.equal(isValidCnpj('11222333000182'), false); // second check digit wrong
  assert.equal(isValidCnpj(bumpLast('00000000003107')), false);
  assert.equal(isValidCnpj('00000000000614'), false); // first check digit has r = 1, so must be 0, not 1
  assert.equal(isValidCnpj('1122233300018'), false);
  assert.equal(isValidCnpj('112223330001810'), false);
  assert.equal(isValidCnpj(''), false);
  assert.equal(isValidCnpj('11.222.333/0001-81'), false);
  assert.equal(isValidCnpj('1122233300018a'), false);
  for (const value of NOT_STRINGS) assert.equal(isValidCnpj(value as string), false);
});

test('CNPJ: repeated-digit sequences fail', () => {
  assert.equal(cnpjWithCheckDigits('000000000000'), '00000000000000'); // the checksum alone would accept it
  for (let d = 0; d <= 9; d++) assert.equal(isValidCnpj(String(d).repeat(14)), false, String(d).repeat(14));
});

test('NUBAN: an account built for bank 058 passes, and fails under bank 011', () => {
  // 058 + 012345678 with weights 3,7,3,3,7,3,3,7,3,3,7,3: 0+35+24+0+7+6+9+28+15+18+49+24 = 215 -> (10-5)%10 = 5.
  assert.equal(nubanCheckDigit('058', '012345678'), 5);
  const account = `012345678${nubanCheckDigit('058', '012345678')}`;
  assert.equal(account, '0123456785');
  assert.equal(isValidNuban('058', account), true);
  // 011 + 012345678: 0+7+3+0+7+6+9+28+15+18+49+24 = 166 -> 4, which differs from 5.
  assert.equal(nubanCheckDigit('011', '012345678'), 4);
  assert.equal(isValidNuban('011', account), false);
  assert.equal(isValidNuban('011', '0123456784'), true);
});

test('NUBAN: a wrong check digit and inputs of the wrong shape fail', () => {
  for (let d = 0; d <= 9; d++) assert.equal(isValidNuban('058', `012345678${d}`), d === 5);
  assert.equal(isValidNuban('58', '0123456785'), false);
  assert.equal(isValidNuban('0058', '0123456785'), false);
  assert.equal(isValidNuban('05a', '0123456785'), false);
  assert.equal(isValidNuban('', '0123456785'), false);
  assert.equal(isValidNuban('058', '123456785'), false);
  assert.equal(isValidNuban('058', '01234567850'), false);
  assert.equal(isValidNuban('058', '012345678X'), false);
  assert.equal(isValidNuban('058', '0123 56785'), false);
  assert.equal(isValidNuban('058', ''), false);
  for (const value of NOT_STRINGS) {
    assert.equal(isValidNuban(value as string, '0123456785'), false);
    assert.equal(isValidNuban('058', value as string), false);
  }
});

test('IFSC: the format is four letters, a zero, six letters or digits', () => {
  assert.equal(isValidIfsc('SBIN0001234'), true);
  assert.equal(isValidIfsc('HDFC0ABC123'), true);
  assert.equal(isValidIfsc('SBIN1001234'), false); // fifth character must be 0
  assert.equal(isValidIfsc('sbin0001234'), false); // upper case only
  assert.equal(isValidIfsc('SB1N0001234'), false); // bank part is letters only
  assert.equal(isValidIfsc('SBIN000123'), false);
  assert.equal(isValidIfsc('SBIN00012345'), false);
  assert.equal(isValidIfsc('SBIN000123-'), false);
  assert.equal(isValidIfsc('SBIN0001234\n'), false);
  assert.equal(isValidIfsc(''), false);
  for (const value of NOT_STRINGS) assert.equal(isValidIfsc(value as string), false);
});

test('PIX: each key type accepts a valid key and rejects an invalid one', () => {
  assert.deepEqual([...PIX_KEY_TYPES], ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP']);
  const cases: Record<(typeof PIX_KEY_TYPES)[number], { valid: string[]; invalid: string[] }> = {
    CPF: { valid: ['52998224725'], invalid: ['52998224726', '529.982.247-25', '11111111111'] },
    CNPJ: { valid: ['11222333000181'], invalid: ['11222333000182', '11.222.333/0001-81', '00000000000000'] },
    EMAIL: {
      valid: ['pagamentos@example.com.br', `${'a'.repeat(65)}@example.com`], // the second is exactly 77 characters
      invalid: [`${'a'.repeat(66)}@example.com`, 'no-at.example.com', 'a@@example.com', 'a@b@example.com',
        '@example.com', 'user@localhost', 'user name@example.com', 'user@example.com '],
    },
    PHONE: {
      valid: ['+5511987654321'],
      invalid: ['5511987654321', '+551187654321', '+5501987654321', '+5511887654321', '+55119876543210', '+1 5511987654321'],
    },
    EVP: {
      valid: ['123e4567-e89b-12d3-a456-426614174000'],
      invalid: ['123E4567-E89B-12D3-A456-426614174000', '123e4567e89b12d3a456426614174000', '123e4567-e89b-12d3-a456-42661417400g'],
    },
  };
  assert.equal(`${'a'.repeat(65)}@example.com`.length, 77);
  for (const type of PIX_KEY_TYPES) {
    for (const key of cases[type].valid) assert.equal(isValidPixKey(type, key), true, `${type} ${key}`);
    for (const key of cases[type].invalid) assert.equal(isValidPixKey(type, key), false, `${type} ${key}`);
  }
});

test('PIX: an unknown or miscased type, a key of another type and non-string input fail', () => {
  assert.equal(isValidPixKey('RANDOM', '123e4567-e89b-12d3-a456-426614174000'), false);
  assert.equal(isValidPixKey('cpf', '52998224725'), false);
  assert.equal(isValidPixKey('', '52998224725'), false);
  assert.equal(isValidPixKey('CNPJ', '52998224725'), false);
  assert.equal(isValidPixKey('EMAIL', '+5511987654321'), false);
  assert.equal(isValidPixKey('PHONE', 'pagamentos@example.com.br'), false);
  for (const value of NOT_STRINGS) {
    assert.equal(isValidPixKey('EMAIL', value as string), false);
    assert.equal(isValidPixKey(value as string, '52998224725'), false);
  }
});

test('check-digit builders reject input of the wrong shape', () => {
  assert.throws(() => clabeCheckDigit('0321800001183597'), RangeError);
  assert.throws(() => cpfWithCheckDigits('52998224a'), RangeError);
  assert.throws(() => cnpjWithCheckDigits('1122233300011'), RangeError);
  assert.throws(() => nubanCheckDigit('58', '012345678'), RangeError);
  assert.throws(() => nubanCheckDigit('058', '01234567'), RangeError);
});
