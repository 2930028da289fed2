// The answers of mock mode: the OpenAPI document's own examples for the operation (a route's
// response schema, or the shared schema it refers to), chosen with `Prefer` as Prism does, with
// the path's ids and the request's own values put in where the answer has the same field.
import type { FastifyRequest } from 'fastify';
import { fullName } from '../payouts/names.ts';

export type NamedExamples = Record<string, unknown>;

type Schema = Record<string, unknown>;

/** Named examples of a schema: `x-examples` (name -> {value}) first, then `examples` as example1, example2 … */
export function examplesOf(schema: Schema | undefined, resolve: (ref: string) => Schema | undefined): NamedExamples {
  if (!schema) return {};
  const named = schema['x-examples'] as Record<string, { value: unknown }> | undefined;
  if (named) return Object.fromEntries(Object.entries(named).map(([name, e]) => [name, e.value]));
  const list = schema['examples'] as unknown[] | undefined;
  if (Array.isArray(list) && list.length > 0) return Object.fromEntries(list.map((e, i) => [`example${i + 1}`, e]));
  const ref = schema['$ref'];
  return typeof ref === 'string' ? examplesOf(resolve(ref.replace(/#.*$/, '')), resolve) : {};
}

export interface Preference {
  code?: number;
  example?: string;
}

/** `Prefer: code=422, example=INSUFFICIENT_PREFUND` (RFC 7240 preferences, as Prism reads them). */
export function parsePrefer(header: string | string[] | undefined): Preference {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const preference: Preference = {};
  for (const part of text.split(/[,;]/)) {
    const [key, raw] = part.split('=').map((s) => s.trim());
    const value = raw?.replace(/^"|"$/g, '');
    if (key === 'code' && value && /^\d{3}$/.test(value)) preference.code = Number(value);
    if (key === 'example' && value) preference.example = value;
  }
  return preference;
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The name the real service would record for the party, if it has one. */
function nameOf(person: unknown): string | undefined {
  const name = isPlain(person) ? fullName(person) : '';
  return name === '' ? undefined : name;
}

/**
 * The example with the caller's values: each path parameter and each top-level body or query value
 * replaces the field of the same name (in the answer and in each record of a list answer), and
 * sender and beneficiary names fill senderName and beneficiaryName.
 */
export function echo(example: unknown, request: FastifyRequest): unknown {
  const given: Record<string, unknown> = {
    ...(isPlain(request.query) ? request.query : {}),
    ...(isPlain(request.body) ? request.body : {}),
    ...(isPlain(request.params) ? request.params : {}),
  };
  const body = isPlain(request.body) ? request.body : {};
  const names = { senderName: nameOf(body['sender']), beneficiaryName: nameOf(body['beneficiary']) };
  const fill = (record: unknown): unknown => {
    if (Array.isArray(record)) return record.map(fill);
    if (!isPlain(record)) return record;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      const mine = given[key];
      const name = names[key as keyof typeof names];
      if (name !== undefined) out[key] = name;
      else if (mine !== undefined && (typeof mine !== 'object' || mine === null) && typeof value !== 'object') out[key] = coerce(mine, value);
      else if (isPlain(mine) && isPlain(value)) out[key] = { ...value, ...mine };
      else out[key] = Array.isArray(value) ? value.map(fill) : value;
    }
    return out;
  };
  return fill(example);
}

/** A query value arrives as text; the answer keeps the example's type for numbers. */
function coerce(mine: unknown, example: unknown): unknown {
  if (typeof example === 'number' && typeof mine === 'string' && mine.trim() !== '' && Number.isFinite(Number(mine))) return Number(mine);
  return mine;
}
