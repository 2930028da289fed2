// Request validation. Bodies are checked strictly: no type coercion (a payout amount sent as the
// string "100" is a 400, not a number) and no silent removal of unknown properties. Query strings
// and path parameters arrive as text, so those are coerced to the schema's types.
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';

function createAjv(coerceTypes: boolean | 'array', sharedSchemas: Record<string, unknown>): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  (addFormats as unknown as (a: Ajv) => Ajv)(ajv);
  for (const schema of Object.values(sharedSchemas)) ajv.addSchema(schema as object);
  return ajv;
}

/**
 * Fastify's validator factory (options.schemaController.compilersFactory.buildValidator). It is
 * called again for every plugin context that adds shared schemas, so the rules above hold in all
 * of them (a compiler set with setValidatorCompiler would be replaced by Fastify's default there).
 */
function buildHttpPartValidator(sharedSchemas: Record<string, unknown>): FastifySchemaCompiler<unknown> {
  const strict = createAjv(false, sharedSchemas);
  const coercing = createAjv('array', sharedSchemas);
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}

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

type SchemaControllerOptions = NonNullable<FastifyServerOptions['schemaController']>;
type ValidatorFactory = NonNullable<NonNullable<SchemaControllerOptions['compilersFactory']>['buildValidator']>;
// Fastify's declared factory type is the bare Ajv compile signature; at run time it calls the
// compiler with the route schema definition ({schema, httpPart, ...}), which is what we use.
export const buildValidator = buildHttpPartValidator as unknown as ValidatorFactory;
