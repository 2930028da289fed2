// Routes typed from their TypeBox schemas: the type provider infers `request.body`, `query` and
// `params` (and checks what a handler returns against its response schemas), so no route casts.
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

export type TypedApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** The same instance, seen through the TypeBox type provider (no runtime change). */
export const typed = (app: FastifyInstance): TypedApp => app.withTypeProvider<TypeBoxTypeProvider>();

/** 204 No Content with no body at all (a typed reply would want the schema's `null` serialised). */
export const noContent = (reply: FastifyReply): FastifyReply => reply.code(204).send();
