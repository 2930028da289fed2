// Checks a provider document an operator hands in (admin CLI providers set) before it becomes a
// row of the catalogue: its shape (the TypeBox schema), exact amounts in each currency's minor
// unit, limits that make sense, one limit and one fee per currency, and field rules that work
// (patterns compile, lengths agree, every example satisfies its own rule).
import { Ajv } from 'ajv';
import { describeValidationError } from '../platform/http/validation.ts';
import { minorUnits, parseAmount, toScaled } from '../platform/money.ts';
import { checkFieldRules } from './field-rules.ts';
import type { FieldRule, Provider } from './model.ts';
import { ProviderDocument } from './schemas.ts';

export type DocumentError = 'INVALID' | 'UNKNOWN_CURRENCY' | 'INVALID_AMOUNT' | 'LIMIT_MIN_ABOVE_MAX' | 'INVALID_LIMITS' | 'INVALID_FEES' | 'INVALID_FIELD_RULE';
export type DocumentResult = { ok: true; provider: Provider } | { ok: false; error: DocumentError; detail: string };

const ajv = new Ajv({ allErrors: false, strict: false });
const checkShape = ajv.compile(ProviderDocument);
const PATTERN_LENGTH_MAX = 200;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*){0,4}$/;

const refuse = (error: DocumentError, detail: string): DocumentResult => ({ ok: false, error, detail });

/** Each currency has exactly one entry; undefined when so, else what is wrong. */
function oneEach(entries: Array<{ currency: string }>, currencies: string[], what: string): string | undefined {
  for (const e of entries) if (!currencies.includes(e.currency)) return `${what}: ${e.currency} is not one of the provider's currencies`;
  for (const c of currencies) {
    const count = entries.filter((e) => e.currency === c).length;
    if (count !== 1) return `${what}: ${c} needs exactly one entry (has ${count})`;
  }
  return undefined;
}

function checkMoney(provider: Provider): DocumentResult | undefined {
  const unknown = provider.currencies.find((c) => minorUnits(c) === undefined);
  if (unknown !== undefined) return refuse('UNKNOWN_CURRENCY', `currencies: ${unknown} is not a currency this service handles`);
  const limits = oneEach(provider.limits, provider.currencies, 'limits');
  if (limits) return refuse('INVALID_LIMITS', limits);
  const fees = oneEach(provider.fees, provider.currencies, 'fees');
  if (fees) return refuse('INVALID_FEES', fees);
  for (const l of provider.limits) {
    const min = parseAmount(l.minimumLimit, l.currency);
    const max = parseAmount(l.maximumLimit, l.currency);
    if (!min.ok) return refuse('INVALID_AMOUNT', `limits: minimumLimit ${l.minimumLimit} has more decimals than ${l.currency} allows`);
    if (!max.ok) return refuse('INVALID_AMOUNT', `limits: maximumLimit ${l.maximumLimit} has more decimals than ${l.currency} allows`);
    if (max.minor === 0n) return refuse('INVALID_LIMITS', `limits: maximumLimit of ${l.currency} must be above 0`);
    if (min.minor > max.minor) return refuse('LIMIT_MIN_ABOVE_MAX', `limits: ${l.currency} minimumLimit ${l.minimumLimit} is above maximumLimit ${l.maximumLimit}`);
  }
  for (const f of provider.fees) {
    if (!parseAmount(f.fixedFee, f.currency).ok) return refuse('INVALID_AMOUNT', `fees: fixedFee ${f.fixedFee} has more decimals than ${f.currency} allows`);
    if (toScaled(f.percentageFee, 4)! > 100_0000n) return refuse('INVALID_FEES', `fees: percentageFee ${f.percentageFee} is above 100`);
  }
  return undefined;
}

/** A request holding every rule's example at its path: each rule must accept it. */
function exampleRequest(rules: FieldRule[]): Record<string, unknown> {
  const request: Record<string, unknown> = {};
  for (const rule of rules) {
    const keys = rule.name.split('.');
    let node = request;
    for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[keys.at(-1)!] = rule.example;
  }
  return request;
}

function checkRules(provider: Provider): DocumentResult | undefined {
  const names = new Set<string>();
  for (const rule of provider.fields) {
    if (!FIELD_NAME.test(rule.name)) return refuse('INVALID_FIELD_RULE', `fields: ${rule.name} is not a dotted request path`);
    if (names.has(rule.name)) return refuse('INVALID_FIELD_RULE', `fields: ${rule.name} has two rules`);
    names.add(rule.name);
    if (rule.minLength !== undefined && rule.maxLength !== undefined && rule.minLength > rule.maxLength) {
      return refuse('INVALID_FIELD_RULE', `fields: ${rule.name} minLength is above maxLength`);
    }
    if (rule.pattern !== undefined && rule.pattern.length > PATTERN_LENGTH_MAX) {
      return refuse('INVALID_FIELD_RULE', `fields: ${rule.name} pattern is longer than ${PATTERN_LENGTH_MAX} characters`);
    }
    if (rule.pattern !== undefined) {
      try {
        new RegExp(rule.pattern);
      } catch {
        return refuse('INVALID_FIELD_RULE', `fields: ${rule.name} pattern does not compile`);
      }
    }
  }
  const request = exampleRequest(provider.fields);
  for (const method of provider.payoutMethods) {
    const broken = checkFieldRules(provider.fields, request, method);
    if (broken) return refuse('INVALID_FIELD_RULE', `fields: the example of ${broken.field} breaks its own rule (${broken.rule})`);
  }
  return undefined;
}

/** The provider the document describes, or the first thing wrong with it. */
export function readProviderDocument(document: unknown): DocumentResult {
  if (!checkShape(document)) {
    return refuse('INVALID', checkShape.errors?.[0] ? describeValidationError(checkShape.errors[0], 'document') : 'invalid');
  }
  const provider = document as Provider;
  return checkMoney(provider) ?? checkRules(provider) ?? { ok: true, provider };
}
