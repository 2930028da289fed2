// A limit on everything: every string, array and integer the API takes or gives has a bound,
// and the same schema that validates a request documents it. Schemas that state their own
// bounds keep them; the rest get these, applied once to each route schema and each shared
// schema before Fastify compiles them and @fastify/swagger documents them:
// - a string: the length its format implies (a UUID 36, a date 10, a date-time 35, a URI 2048),
//   else TEXT_LENGTH_MAX, unless an enum or a const already bounds it;
// - an array: ARRAY_ITEMS_MAX items;
// - an integer: format int32 when its range fits, int64 otherwise, and the range of that format
//   (within JSON's exact integers) when it states none.

export const TEXT_LENGTH_MAX = 1024;
export const ARRAY_ITEMS_MAX = 1000;

const FORMAT_LENGTH_MAX: Readonly<Record<string, number>> = {
  uuid: 36,
  date: 10,
  'date-time': 35,
  time: 25,
  uri: 2048,
  'uri-reference': 2048,
  email: 254,
  ipv4: 15,
  ipv6: 45,
};

const INT32 = { min: -2_147_483_648, max: 2_147_483_647 };
const SAFE = { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

function hasType(schema: Schema, type: string): boolean {
  const declared = schema['type'];
  return declared === type || (Array.isArray(declared) && declared.includes(type));
}

function boundString(schema: Schema): void {
  if (schema['maxLength'] !== undefined || schema['enum'] !== undefined || schema['const'] !== undefined) return;
  schema['maxLength'] = FORMAT_LENGTH_MAX[String(schema['format'])] ?? TEXT_LENGTH_MAX;
}

function boundInteger(schema: Schema): void {
  const min = schema['minimum'] as number | undefined;
  const max = schema['maximum'] as number | undefined;
  const fits32 = (min ?? INT32.min) >= INT32.min && (max ?? INT32.max) <= INT32.max;
  schema['format'] ??= fits32 ? 'int32' : 'int64';
  const range = schema['format'] === 'int32' ? INT32 : SAFE;
  schema['minimum'] ??= range.min;
  schema['maximum'] ??= range.max;
}

const CHILD_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const CHILD_SCHEMAS = ['items', 'additionalProperties', 'not', 'contains'] as const;
const CHILD_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;

/** Adds the missing bounds to a JSON schema and everything inside it, in place; answers it. */
export function applyBounds<T>(target: T, seen = new Set<unknown>()): T {
  const schema: unknown = target;
  if (!isSchema(schema) || seen.has(schema)) return target;
  seen.add(schema);
  if (hasType(schema, 'string')) boundString(schema);
  if (hasType(schema, 'array')) schema['maxItems'] ??= ARRAY_ITEMS_MAX;
  if (hasType(schema, 'integer')) boundInteger(schema);
  for (const key of CHILD_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) for (const child of list) applyBounds(child, seen);
  }
  for (const key of CHILD_SCHEMAS) applyBounds(schema[key], seen);
  for (const key of CHILD_MAPS) {
    const map = schema[key];
    if (isSchema(map)) for (const child of Object.values(map)) applyBounds(child, seen);
  }
  return target;
}

/** The parts of a route schema that are JSON schemas (responses keyed by status, maybe with content types). */
export function applyRouteBounds(routeSchema: Schema): void {
  for (const part of ['body', 'querystring', 'params', 'headers'] as const) applyBounds(routeSchema[part]);
  const responses = routeSchema['response'];
  if (!isSchema(responses)) return;
  for (const response of Object.values(responses)) {
    if (isSchema(response) && isSchema(response['content'])) {
      for (const media of Object.values(response['content'])) if (isSchema(media)) applyBounds(media['schema']);
    } else {
      applyBounds(response);
    }
  }
}
