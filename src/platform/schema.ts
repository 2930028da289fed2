// Small TypeBox helpers shared by every domain's schemas.
import { Type, type TSchema, type TUnsafe } from 'typebox';

/** A string enum written as JSON Schema `enum` (what OpenAPI readers and code generators expect). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}
