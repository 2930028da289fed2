// Exact money. Amounts are integers of a currency's minor unit (bigint); decimal text and JSON
// numbers are converted through their decimal digits, never through binary floating point
// arithmetic. Rounding, where a rate or a percentage makes it necessary, is half-up.

/** ISO 4217 minor units of the currencies this service handles. */
const MINOR_UNITS: Readonly<Record<string, number>> = {
  USD: 2, EUR: 2, GBP: 2, CAD: 2, AUD: 2, CHF: 2,
  MXN: 2, BRL: 2, PHP: 2, INR: 2, NGN: 2, KES: 2, GHS: 2, COP: 2, PEN: 2, ZAR: 2, EGP: 2,
  USDC: 6,
  JPY: 0, KRW: 0, CLP: 0, VND: 0, UGX: 0, XOF: 0,
  KWD: 3, BHD: 3, JOD: 3,
};

export function minorUnits(currency: string): number | undefined {
  return MINOR_UNITS[currency];
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;
const EXPONENT = /^(-)?(\d+)(?:\.(\d+))?e([+-]?\d+)$/i;

/** The plain decimal digits of a JSON number, as its shortest round-trip text gives them. */
export function decimalText(value: number | string): string | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const exp = EXPONENT.exec(text);
  if (!exp) return DECIMAL.test(text) ? text : undefined;
  const [, sign = '', int = '', frac = '', e = '0'] = exp;
  const digits = int + frac;
  const point = int.length + Number(e);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Decimal text to an integer scaled by 10^scale; undefined when it has more decimals than scale. */
export function toScaled(text: string, scale: number): bigint | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, int = '0', frac = ''] = match;
  const trimmed = frac.replace(/0+$/, '');
  if (trimmed.length > scale) return undefined;
  const magnitude = BigInt(int) * 10n ** BigInt(scale) + BigInt(trimmed.padEnd(scale, '0') || '0');
  return sign ? -magnitude : magnitude;
}

export type AmountError = 'NOT_A_NUMBER' | 'UNKNOWN_CURRENCY' | 'TOO_MANY_DECIMALS';

/** A JSON number or decimal text, in the currency's minor units. */
export function parseAmount(value: number | string, currency: string): { ok: true; minor: bigint } | { ok: false; error: AmountError } {
  const scale = minorUnits(currency);
  if (scale === undefined) return { ok: false, error: 'UNKNOWN_CURRENCY' };
  const text = decimalText(value);
  if (text === undefined) return { ok: false, error: 'NOT_A_NUMBER' };
  const minor = toScaled(text, scale);
  return minor === undefined ? { ok: false, error: 'TOO_MANY_DECIMALS' } : { ok: true, minor };
}

/** Minor units to decimal text with exactly the currency's decimals ("1234.50", "-0.05", "120"). */
export function formatMinor(minor: bigint, currency: string): string {
  const scale = minorUnits(currency);
  if (scale === undefined) throw new Error(`unknown currency ${currency}`);
  return formatScaled(minor, scale);
}

export function formatScaled(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const int = digits.slice(0, digits.length - scale);
  const frac = scale > 0 ? `.${digits.slice(digits.length - scale)}` : '';
  return `${negative ? '-' : ''}${int}${frac}`;
}

/**
 * Exact decimal text (a NUMERIC column, a rate) as the JSON number the records carry; throws when
 * no JSON number has exactly that value (more than about 15 significant digits).
 */
export function decimalToJsonNumber(text: string): number {
  const trim = (t: string) => (t.includes('.') ? t.replace(/\.?0+$/, '') : t);
  const value = Number(text);
  const back = decimalText(value);
  if (back === undefined || trim(back) !== trim(text.trim())) throw new Error(`${text} has no exact JSON number`);
  return value;
}

/**
 * Minor units as the JSON number the records carry. The contract's amounts are JSON numbers, so an
 * amount with no exact one (beyond about 15 significant digits: a balance of a trillion in a
 * two-decimal currency is still exact) is refused loudly rather than rounded.
 */
export function toJsonNumber(minor: bigint, currency: string): number {
  return decimalToJsonNumber(formatMinor(minor, currency));
}

/** numerator / denominator rounded half-up (away from zero on ties). */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new Error('division by zero');
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = (n * 2n + d) / (d * 2n);
  return negative ? -quotient : quotient;
}

/** numerator / denominator rounded down, both non-negative: where rounding must never favour the counterparty. */
export function divideDown(numerator: bigint, denominator: bigint): bigint {
  if (numerator < 0n || denominator <= 0n) throw new Error('divideDown takes a non-negative numerator and a positive denominator');
  return numerator / denominator;
}

/** How many digits a decimal text has after its point ("0.25" -> 2, "12" -> 0). */
function decimalPlaces(text: string): number {
  const [, , , frac = ''] = DECIMAL.exec(text) ?? [];
  return frac.length;
}

/** amount * percentage / 100, half-up to the minor unit; percentage is decimal text ("1.25"). */
export function percentageOf(minor: bigint, percentage: string): bigint {
  const text = decimalText(percentage);
  const scale = decimalPlaces(text ?? '');
  const scaled = text === undefined ? undefined : toScaled(text, scale);
  if (scaled === undefined) throw new Error(`not a percentage: ${percentage}`);
  return divideHalfUp(minor * scaled, 100n * 10n ** BigInt(scale));
}

/** amount * rate, from one currency's minor units into another's, half-up; rate is decimal text. */
export function convert(minor: bigint, fromCurrency: string, rate: string, toCurrency: string): bigint {
  const from = minorUnits(fromCurrency);
  const to = minorUnits(toCurrency);
  const text = decimalText(rate);
  if (from === undefined || to === undefined || text === undefined) throw new Error('bad conversion input');
  const rateScale = decimalPlaces(text);
  const scaledRate = toScaled(text, rateScale)!;
  // minor * 10^-from * rate * 10^-rateScale, expressed in 10^-to units
  return divideHalfUp(minor * scaledRate * 10n ** BigInt(to), 10n ** BigInt(from + rateScale));
}
