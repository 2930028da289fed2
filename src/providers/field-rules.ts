// A provider's field rules applied to a payout creation request. The rules are data (the
// provider's `fields`); this file holds the small set of named validators they may use.
import { isValidClabe, isValidCnpj, isValidCpf, isValidIfsc, isValidNuban, isValidPixKey } from './check-digits.ts';
import type { FieldFormat, FieldRule, PayoutMethod } from './model.ts';

type Request = Record<string, unknown>;

function valueAt(request: Request, dotted: string): unknown {
  let current: unknown = request;
  for (const key of dotted.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const text = (request: Request, dotted: string) => {
  const value = valueAt(request, dotted);
  return typeof value === 'string' ? value : '';
};

function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().startsWith(value);
}

/** Each named format: its check, and the rule named in the error detail. */
const FORMATS: Record<FieldFormat, { check: (value: string, request: Request) => boolean; rule: string }> = {
  date: { check: isCalendarDate, rule: 'must be a calendar date (YYYY-MM-DD)' },
  email: { check: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v), rule: 'must be an e-mail address' },
  clabe: { check: isValidClabe, rule: 'must be an 18-digit CLABE with a valid check digit' },
  cpf: { check: isValidCpf, rule: 'must be an 11-digit CPF with valid check digits' },
  cnpj: { check: isValidCnpj, rule: 'must be a 14-digit CNPJ with valid check digits' },
  'cpf-or-cnpj': { check: (v) => isValidCpf(v) || isValidCnpj(v), rule: 'must be a CPF (11 digits) or CNPJ (14 digits) with valid check digits' },
  'pix-key': { check: (v, r) => isValidPixKey(text(r, 'beneficiary.pixType'), v), rule: 'must be a valid PIX key of the type given in beneficiary.pixType' },
  nuban: { check: (v, r) => isValidNuban(text(r, 'beneficiary.branchNumber'), v), rule: 'must be a 10-digit NUBAN whose check digit matches the bank code in beneficiary.branchNumber' },
  ifsc: { check: isValidIfsc, rule: 'must be an IFSC (4 letters, 0, 6 letters or digits)' },
};

const compiled = new Map<string, RegExp>();
function regex(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) compiled.set(pattern, (re = new RegExp(pattern)));
  return re;
}

export interface FieldViolation {
  field: string;
  rule: string;
}

function violation(rule: FieldRule, value: unknown, request: Request): string | undefined {
  if (value === undefined || value === null || value === '') return rule.required ? 'is required by this payout provider' : undefined;
  if (typeof value !== 'string') return 'must be a string';
  if (rule.minLength !== undefined && value.length < rule.minLength) return `must have at least ${rule.minLength} characters`;
  if (rule.maxLength !== undefined && value.length > rule.maxLength) return `must have at most ${rule.maxLength} characters`;
  if (rule.enum !== undefined && !rule.enum.includes(value)) return `must be one of ${rule.enum.join(', ')}`;
  if (rule.pattern !== undefined && !regex(rule.pattern).test(value)) return `must match pattern ${rule.pattern}`;
  if (rule.format !== undefined && !FORMATS[rule.format].check(value, request)) return FORMATS[rule.format].rule;
  return undefined;
}

/** The first rule the request breaks, for the payout method in use; undefined when it keeps them all. */
export function checkFieldRules(rules: FieldRule[], request: Request, method: PayoutMethod): FieldViolation | undefined {
  for (const rule of rules) {
    if (rule.payoutMethods !== undefined && !rule.payoutMethods.includes(method)) continue;
    const broken = violation(rule, valueAt(request, rule.name), request);
    if (broken !== undefined) return { field: rule.name, rule: broken };
  }
  return undefined;
}
