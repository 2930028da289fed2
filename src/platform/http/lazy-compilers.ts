// Compilers that build a route's validator or serializer on the route's first request instead of
// at boot. Mock mode uses them to start in well under a second (compiling every schema up front
// is most of a boot); the real service compiles at boot, so that a broken schema stops it there.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';
import { buildValidator } from './validation.ts';

type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type AnyFunction = (...args: never[]) => unknown;

function lazily(compile: () => AnyFunction) {
  let compiled: (AnyFunction & { errors?: unknown }) | undefined;
  const run = (...args: never[]) => {
    compiled ??= compile();
    const result = compiled(...args);
    run.errors = compiled.errors; // Fastify reads the errors of a failed validation from the function
    return result;
  };
  run.errors = undefined as unknown;
  return run;
}

export const lazyCompilers: Compilers = {
  // the factories themselves are deferred too: each builds its Ajv instances, once per plugin context
  buildValidator: ((externalSchemas: unknown, options: unknown) => {
    let compiler: ((route: unknown) => AnyFunction) | undefined;
    const factory = buildValidator as unknown as (e: unknown, o: unknown) => (route: unknown) => AnyFunction;
    return (route: unknown) => lazily(() => (compiler ??= factory(externalSchemas, options))(route));
  }) as unknown as Compilers['buildValidator'],
  buildSerializer: ((externalSchemas: unknown, options: unknown) => {
    let compiler: ((route: unknown) => AnyFunction) | undefined;
    const factory = SerializerSelector() as unknown as (e: unknown, o: unknown) => (route: unknown) => AnyFunction;
    return (route: unknown) => lazily(() => (compiler ??= factory(externalSchemas, options))(route));
  }) as unknown as Compilers['buildSerializer'],
};
