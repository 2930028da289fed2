// Pure, dependency-free format and check-digit validators for local banking identifiers
// (CLABE, CPF, CNPJ, NUBAN, IFSC, PIX keys). Validators return a boolean and never throw, whatever
// they are given; the check-digit builders throw a RangeError on input of the wrong shape.

export const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'] as const;
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

const CLABE_WEIGHTS = [3, 7, 1];
const NUBAN_WEIGHTS = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3];
const CNPJ_WEIGHTS_1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_2 = [6, ...CNPJ_WEIGHTS_1];

// True when value is a string of exactly `length` ASCII digits.
function isDigits(value: unknown, length: number): value is string {
  return typeof value === 'string' && value.length === length && /^[0-9]+$/.test(value);
}

// The ASCII digits of value as numbers; throws when value is not exactly `length` digits.
function digitsOf(value: unknown, length: number, what: string): number[] {
  if (!isDigits(value, length)) throw new RangeError(`${what} must be exactly ${length} digits`);
  return Array.from(value, (c) => c.charCodeAt(0) - 48);
}

// True when every character of value is the same (00000000000, 11111111111, ...).
function isRepeated(value: string): boolean {
  return value.split('').every((c) => c === value[0]);
}

// CLABE (Mexico): weights 3,7,1 repeating, sum of (digit*weight mod 10), check = (10 - sum mod 10) mod 10.
export function clabeCheckDigit(first17: string): number {
  const sum = digitsOf(first17, 17, 'first17').reduce((acc, d, i) => acc + ((d * CLABE_WEIGHTS[i % 3]!) % 10), 0);
  return (10 - (sum % 10)) % 10;
}

// CLABE (Mexico): 18 digits, the last being the clabeCheckDigit of the first 17.
export function isValidClabe(value: string): boolean {
  return isDigits(value, 18) && clabeCheckDigit(value.slice(0, 17)) === Number(value[17]);
}

// CPF (Brazil): one mod-11 check digit, weights (n+1)..2 over n digits, r = sum*10 mod 11, 10 -> 0.
function cpfDigit(digits: number[]): number {
  const sum = digits.reduce((acc, d, i) => acc + d * (digits.length + 1 - i), 0);
  return ((sum * 10) % 11) % 10;
}

// CPF (Brazil): the 11-digit CPF made of first9 followed by its two check digits.
export function cpfWithCheckDigits(first9: string): string {
  const digits = digitsOf(first9, 9, 'first9');
  const d1 = cpfDigit(digits);
  return `${first9}${d1}${cpfDigit([...digits, d1])}`;
}

// CPF (Brazil): 11 digits, no punctuation, both mod-11 check digits right, not one repeated digit.
export function isValidCpf(value: string): boolean {
  return isDigits(value, 11) && !isRepeated(value) && cpfWithCheckDigits(value.slice(0, 9)) === value;
}

// CNPJ (Brazil): one mod-11 check digit, r = sum mod 11, digit = r < 2 ? 0 : 11 - r.
function cnpjDigit(digits: number[], weights: number[]): number {
  const r = digits.reduce((acc, d, i) => acc + d * weights[i]!, 0) % 11;
  return r < 2 ? 0 : 11 - r;
}

// CNPJ (Brazil): the 14-digit CNPJ made of first12 followed by its two check digits.
export function cnpjWithCheckDigits(first12: string): string {
  const digits = digitsOf(first12, 12, 'first12');
  const d1 = cnpjDigit(digits, CNPJ_WEIGHTS_1);
  return `${first12}${d1}${cnpjDigit([...digits, d1], CNPJ_WEIGHTS_2)}`;
}

// CNPJ (Brazil): 14 digits, no punctuation, both mod-11 check digits right, not one repeated digit.
export function isValidCnpj(value: string): boolean {
  return isDigits(value, 14) && !isRepeated(value) && cnpjWithCheckDigits(value.slice(0, 12)) === value;
}

// NUBAN (Nigeria): weights 3,7,3,3,7,3,3,7,3,3,7,3 over bankCode+first9, check = (10 - sum mod 10) mod 10.
export function nubanCheckDigit(bankCode: string, first9: string): number {
  const digits = [...digitsOf(bankCode, 3, 'bankCode'), ...digitsOf(first9, 9, 'first9')];
  const sum = digits.reduce((acc, d, i) => acc + d * NUBAN_WEIGHTS[i]!, 0);
  return (10 - (sum % 10)) % 10;
}

// NUBAN (Nigeria): 3-digit CBN bank code and 10-digit account number whose last digit is the NUBAN check digit.
export function isValidNuban(bankCode: string, accountNumber: string): boolean {
  return (
    isDigits(bankCode, 3) &&
    isDigits(accountNumber, 10) &&
    nubanCheckDigit(bankCode, accountNumber.slice(0, 9)) === Number(accountNumber[9])
  );
}

// IFSC (India): 4 bank letters, a literal 0, 6 branch characters; there is no check digit.
export function isValidIfsc(value: string): boolean {
  return typeof value === 'string' && /^[A-Z]{4}0[A-Z0-9]{6}$/.test(value);
}

// PIX (Brazil): a key valid for its type (CPF, CNPJ, EMAIL, PHONE in E.164 mobile form, EVP random UUID).
export function isValidPixKey(pixType: string, pixKey: string): boolean {
  if (typeof pixKey !== 'string') return false;
  switch (pixType) {
    case 'CPF':
      return isValidCpf(pixKey);
    case 'CNPJ':
      return isValidCnpj(pixKey);
    case 'EMAIL':
      return pixKey.length <= 77 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(pixKey);
    case 'PHONE':
      return /^\+55[1-9]{2}9[0-9]{8}$/.test(pixKey);
    case 'EVP':
      return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(pixKey);
    default:
      return false;
  }
}
