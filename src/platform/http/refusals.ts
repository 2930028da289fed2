// From a domain's refusal to the contract's Error answer, through the domain's refusal table
// (see platform/result.ts for the convention).
import { ApiError, type ErrorCode } from './errors.ts';

/** How the contract answers one refusal: its code (which fixes the status) and message. `detail`
 *  is used only when the refusal carries none (a fixed detail for that refusal). */
export interface RefusalAnswer {
  readonly code: ErrorCode;
  readonly message: string;
  readonly detail?: string;
}

/** One entry per refusal of a domain; declare tables with `satisfies RefusalTable<X>`. */
export type RefusalTable<E extends string> = { readonly [K in E]: RefusalAnswer };

/** The ApiError the error handler writes for this refusal (Retry-After when it says when). */
export function refusalError<E extends string>(
  table: RefusalTable<E>,
  refusal: { error: E; detail?: string; retryAfterSeconds?: number },
): ApiError {
  const answer = table[refusal.error];
  const detail = refusal.detail || answer.detail || '';
  const headers: Record<string, string> = refusal.retryAfterSeconds === undefined ? {} : { 'retry-after': String(refusal.retryAfterSeconds) };
  return new ApiError(answer.code, answer.message, detail, headers);
}
