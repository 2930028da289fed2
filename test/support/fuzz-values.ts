// Test support for the fuzz suite: JSON values generated from an OpenAPI schema with fast-check,
// valid-looking ones mixed with hostile ones (NUL and control characters, lone surrogates, very
// long text, extreme numbers, wrong types, deep nesting, unknown and repeated keys).
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

/** JSON text written into the document verbatim (numbers JSON.stringify cannot spell, nesting). */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** A JSON object written entry by entry, so that a key may appear twice. */
export class Entries {
  readonly entries: Array<[string, unknown]>;
  constructor(entries: Array<[string, unknown]>) {
    this.entries = entries;
  }
}

export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') return toJsonText(new Entries(Object.entries(value)));
  return JSON.stringify(value) ?? 'null';
}

/** Text as a query string or a form field would carry it (the string form of a JSON value). */
export function toPlainText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof RawJson) return value.text;
  return toJsonText(value);
}

const LONG_LENGTHS = [300, 5_000, 70_000];
const NEST_DEPTHS = [300, 3_000, 20_000];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'a\u0000b', '\u0000', '\u0001\u0008\u001b\u001f\u007f', '\ud800', 'x\udfff', '\udc00\ud800', '\ud83d\ude00', '\u202e\u200b\ufeff',
    '\n\r\t', '', ' ', '../../etc/passwd', "'; DROP TABLE payouts;--", '%00', '%E0%A4%A', '\\', '"', '{}', 'null', '__proto__',
    '1e308', '-0', 'NaN', '\u00e9\u00e8', '\u{10ffff}', '\ufffd',
  ),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(...LONG_LENGTHS).chain((n) => fc.constantFrom('x', '\u0000', '\u00e9', '\ud800').map((c) => c.repeat(n))),
);

export const hostileNumber: fc.Arbitrary<RawJson> = fc
  .constantFrom(
    '1e308', '-1e308', '1e309', '-0', '0', '1e-300', '5e-324', '123456789012345678901234567890', '-123456789012345678901234567890',
    '0.123456789012345678901234567890', '9007199254740993', '1E2', '1e21', '-1', '0.005', '1.005', '999999999999.999', '1000000000000.01',
    '0.0000001', '100.10', '1e-7',
  )
  .map((text) => new RawJson(text));

const wrongType: fc.Arbitrary<unknown> = fc.constantFrom(null, true, false, [], {}, [null], 0, 1, '', '1', { a: 1 }, [[[]]]);

/** Nesting a few hundred to many thousand levels deep, sometimes with a NUL at the bottom. */
export const deepNesting: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(...NEST_DEPTHS), fc.constantFrom('array', 'object'), fc.constantFrom('1', '"\\u0000"', '"\\ud800"', '"x"'))
  .map(([depth, kind, leaf]) => {
    const n = kind === 'object' ? Math.floor(depth / 3) : depth;
    return new RawJson(kind === 'array' ? `${'['.repeat(n)}${leaf}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}${leaf}${'}'.repeat(n)}`);
  });

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 2, arbitrary: wrongType },
  { weight: 1, arbitrary: deepNesting },
);

export interface ValueContext {
  /** The OpenAPI document, to resolve $ref. */
  doc: { components?: { schemas?: Record<string, Schema> } };
  /** Mix hostile values into the leaves. */
  hostile: boolean;
  /** Known values by property or parameter name (ids of resources that exist); they may grow. */
  pools: Record<string, readonly string[]>;
}

export function resolve(schema: Schema, doc: ValueContext['doc']): Schema {
  const ref = schema['$ref'];
  if (typeof ref !== 'string') return schema;
  const found = doc.components?.schemas?.[ref.replace('#/components/schemas/', '')];
  if (!found) throw new Error(`unresolved ${ref}`);
  return resolve(found, doc);
}

const MAX_DEPTH = 6;

/** Values for one schema: its example, known ids, values the schema allows, and (hostile) the rest. */
export function valueFor(input: Schema, ctx: ValueContext, name = '', example: unknown = undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(input, ctx.doc);
  const options: Array<fc.WeightedArbitrary<unknown>> = [{ weight: 4, arbitrary: validFor(schema, ctx, example, depth) }];
  // Well-formed requests lean on the documented example, so that most of them get past the
  // domain's own rules (a payout provider's field rules) and reach the deeper code.
  if (example !== undefined && typeof example !== 'object') options.push({ weight: ctx.hostile ? 4 : 16, arbitrary: fc.constant(example) });
  const pool = ctx.pools[name];
  // The pool grows while the suite runs (ids of what it created): it is read when a value is drawn.
  if (pool) options.push({ weight: 8, arbitrary: fc.nat().chain((i) => (pool.length > 0 ? fc.constant(pool[i % pool.length]) : validFor(schema, ctx, example, depth))) });
  if (ctx.hostile) options.push({ weight: 1, arbitrary: hostileValue });
  return fc.oneof(...options);
}

function validFor(schema: Schema, ctx: ValueContext, example: unknown, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  switch (schema['type']) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({ min: num(schema['minimum'], -1_000_000), max: num(schema['maximum'], 1_000_000) });
    case 'number':
      return numberFor(schema);
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = (schema['items'] ?? {}) as Schema;
      const first = Array.isArray(example) ? example[0] : undefined;
      const item = depth >= MAX_DEPTH ? fc.constant(null) : valueFor(items, ctx, '', first, depth + 1);
      const constraints = { minLength: num(schema['minItems'], 0), maxLength: Math.min(num(schema['maxItems'], 4), 4) };
      return schema['uniqueItems'] ? fc.uniqueArray(item, { ...constraints, selector: (v) => toJsonText(v) }) : fc.array(item, constraints);
    }
    case 'object':
      return depth >= MAX_DEPTH ? fc.constant({}) : objectFor(schema, ctx, example, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function num(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

function stringFor(schema: Schema): fc.Arbitrary<string> {
  const maxLength = num(schema['maxLength'], 40);
  const minLength = num(schema['minLength'], 0);
  switch (schema['format']) {
    case 'uuid':
      return fc.uuid({ version: 4 });
    case 'date':
      return fc.oneof(
        fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
        fc.constantFrom('0000-01-01', '9999-12-31', '2024-02-29', '1900-02-28'),
      );
    case 'date-time':
      return fc.oneof(
        fc.date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
        // what RFC 3339 allows beyond toISOString: leap seconds, offsets, lower case, long fractions, far years
        fc.constantFrom('2016-12-31T23:59:60Z', '2017-01-01T00:59:60.999+01:00', '2026-01-01t00:00:00z', '2026-01-01 00:00:00Z',
          '2026-01-01T00:00:00.123456789-23:59', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z'),
      );
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
  }
  if (typeof schema['pattern'] === 'string') {
    return fc.stringMatching(new RegExp(schema['pattern'] as string)).filter((s) => s.length >= minLength && s.length <= maxLength);
  }
  return fc.string({ minLength, maxLength: Math.min(maxLength, 60) });
}

function numberFor(schema: Schema): fc.Arbitrary<number> {
  const min = num(schema['minimum'], num(schema['exclusiveMinimum'], -1e12));
  const max = num(schema['maximum'], num(schema['exclusiveMaximum'], 1e12));
  const cents = fc.integer({ min: Math.ceil(Math.max(min, -1e12) * 100), max: Math.floor(Math.min(max, 1e12) * 100) }).map((n) => n / 100);
  const small = fc.integer({ min: Math.ceil(Math.max(min, 0)), max: Math.floor(Math.min(max, 5_000)) });
  return fc.oneof(cents, small, fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
}

const OMIT = Symbol('omitted');

/**
 * An object of the schema's properties: the required ones and the example's nearly always, the
 * other optional ones now and then; hostile, also a missing required one, an unknown property
 * or a repeated key.
 */
function objectFor(schema: Schema, ctx: ValueContext, example: unknown, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const exampleObject = (example !== null && typeof example === 'object' ? example : {}) as Record<string, unknown>;
  const entries = Object.entries(properties).map(([key, property]) => {
    const value = valueFor(property, ctx, key, exampleObject[key], depth + 1);
    const usual = required.has(key) || key in exampleObject;
    const omitWeight = usual ? (ctx.hostile ? 1 : 0) : 6;
    const keepWeight = usual ? 20 : ctx.hostile ? 2 : 1;
    return fc.oneof({ weight: omitWeight, arbitrary: fc.constant(OMIT) }, { weight: keepWeight, arbitrary: value }).map((v) => [key, v] as const);
  });
  const record = fc.tuple(...entries).map((pairs) => pairs.filter(([, v]) => v !== OMIT) as Array<[string, unknown]>);
  if (!ctx.hostile) return record.map((pairs) => Object.fromEntries(pairs));
  const unknownEntry = fc.option(fc.tuple(fc.oneof(fc.constantFrom('unknown', '__proto__', 'constructor', ''), fc.string({ maxLength: 8 })), hostileValue), { freq: 6 });
  const repeatIndex = fc.option(fc.nat(), { freq: 8 });
  return fc.tuple(record, unknownEntry, repeatIndex, hostileValue).map(([pairs, extra, repeat, other]) => {
    const all: Array<[string, unknown]> = [...pairs];
    if (extra !== null) all.push(extra);
    if (repeat !== null && all.length > 0) all.push([all[repeat % all.length]![0], other]);
    return new Entries(all);
  });
}
