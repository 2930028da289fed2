// Turns the service's OpenAPI document into the client's TypeScript types with openapi-typescript.
// Used by scripts/generate.ts (which writes src/schema.d.ts) and by the drift test (which compares).
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

/** Where the generated types are committed, relative to the client package. */
export const SCHEMA_FILE = new URL('../src/schema.d.ts', import.meta.url);

/** The generated types file's whole text for an OpenAPI document (parsed JSON). */
export async function generateTypes(document: unknown): Promise<string> {
  // openapi-typescript validates and bundles the document in place: give it its own copy.
  const ast = await openapiTS(structuredClone(document) as OpenAPI3, { silent: true });
  return COMMENT_HEADER + astToString(ast);
}
