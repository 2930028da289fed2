// Small TypeBox helpers shared by every domain's schemas.
import { Type, type TSchema, type TUnsafe } from 'typebox';

/** A string enum written as JSON Schema `enum` (what OpenAPI readers and code generators expect). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A reference to a named schema, typed as what that schema accepts (a bare Type.Ref is `unknown` to the compiler). */
export function TypedRef<T>(id: string, options: Record<string, unknown> = {}): TUnsafe<T> {
  return Type.Unsafe<T>(Type.Ref(id, options));
}

export function Nullable<T extends TSchema>(schema: T, options: Record<string, unknown> = {}) {
  return Type.Union([schema, Type.Null()], options);
}

/** Paging and sorting fields have defaults: optional to the caller, always there once validated. */
type PagingField = 'page' | 'size' | 'sortField' | 'sortDirection';
export type WithPagingDefaults<Q extends Partial<Record<PagingField, unknown>>> = Q & Required<Pick<Q, PagingField>>;
const PAGING_FIELDS: readonly PagingField[] = ['page', 'size', 'sortField', 'sortDirection'];

/** Validation (Ajv's useDefaults) filled in the paging defaults: this says so to the compiler, and checks it. */
export function assertPagingDefaults<Q extends Partial<Record<PagingField, unknown>>>(query: Q): asserts query is WithPagingDefaults<Q> {
  const missing = PAGING_FIELDS.find((field) => query[field] === undefined);
  if (missing !== undefined) throw new Error(`${missing}: the schema's default was not applied`);
}

/**
 * A page of a list as the description gives it: the items under their own name (`payouts`,
 * `settlements`), with page, size, totalPages and totalRecords.
 */
export function PagedList<const K extends string>(itemsKey: K, itemRef: string, what: string, example: Record<string, unknown>) {
  return Type.Object(
    {
      [itemsKey]: Type.Array(Type.Ref(itemRef)),
      page: Type.Integer({ minimum: 0 }),
      size: Type.Integer({ minimum: 1 }),
      totalPages: Type.Integer({ minimum: 0, description: 'ceil(totalRecords / size)' }),
      totalRecords: Type.Integer({ minimum: 0, description: `${what} matching the filters, on all pages` }),
    } as Record<K | 'page' | 'size' | 'totalPages' | 'totalRecords', TSchema>,
    { additionalProperties: false, examples: [{ [itemsKey]: [example], page: 0, size: 10, totalPages: 1, totalRecords: 1 }] },
  );
}
