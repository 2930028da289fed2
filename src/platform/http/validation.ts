// Request validation. Bodies are checked strictly: no type coercion (a payout amount sent as the
// string "100" is a 400, not a number) and no silent removal of unknown properties. Query strings
// and path parameters arrive as text, so those are coerced to the schema's types.
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function createAjv(coerceTypes: boolean | 'array'): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  (addFormats as unknown as (a: Ajv) => Ajv)(ajv);
  return ajv;
}

const strict = createAjv(false);
const coercing = createAjv('array');

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strict : coercing;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

/** `beneficiary.accountNumber: must match pattern "^[0-9]{18}$"` from an Ajv error. */
export function describeValidationError(error: ErrorObject, part: string | undefined): string {
  const segments = error.instancePath.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') segments.push(String(params['missingProperty']));
  if (error.keyword === 'additionalProperties') {
    segments.push(String(params['additionalProperty']));
    return `${fieldPath(segments, part)}: is not a known property`;
  }
  const allowed = params['allowedValues'];
  const rule = Array.isArray(allowed) ? `must be one of ${allowed.join(', ')}` : (error.message ?? 'is invalid');
  return `${fieldPath(segments, part)}: ${error.keyword === 'required' ? 'is required' : rule}`;
}

function fieldPath(segments: string[], part: string | undefined): string {
  const path = segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
  return path || (part === 'querystring' ? 'query' : (part ?? 'body'));
}
