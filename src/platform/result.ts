// The one failure convention of the service.
//
// A use case returns `Result<T, E>`: its value, or a refusal naming an expected failure. The error
// is a string union owned by the domain (in its `errors.ts`, e.g. `'UNKNOWN_CLIENT' |
// 'CLIENT_REVOKED'`), and the detail names the offending field and rule for the caller. A refusal
// that asks the caller to come back later also says when (`retryAfterSeconds`).
//
// Each domain's `errors.ts` holds ONE table mapping every refusal of that domain to the contract's
// code and message (the status follows from the code), declared with
// `satisfies RefusalTable<DomainRefusal>` so the compiler rejects a missing or unknown entry.
// Routes turn a refusal into the contract's Error answer with `refusalError(table, result)`
// (platform/http/refusals.ts); nothing else in a route decides a status.
//
// Throw only `Error` subclasses, and only for bugs and infrastructure faults: an expected failure
// is a value, never an exception.

export type Refusal<E extends string> = { ok: false; error: E; detail: string; retryAfterSeconds?: number };
export type Result<T, E extends string> = { ok: true; value: T } | Refusal<E>;

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

export const refuse = <E extends string>(error: E, detail = '', retryAfterSeconds?: number): Refusal<E> =>
  retryAfterSeconds === undefined ? { ok: false, error, detail } : { ok: false, error, detail, retryAfterSeconds };
