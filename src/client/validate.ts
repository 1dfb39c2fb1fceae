// Local request validation: bodies and path parameters are checked before anything is sent,
// so a bad spec fails fast with a `RequestValidationError` and costs no request.
import { z } from 'zod';
import { formatIssues, toIssues } from './classify.ts';
import { RequestValidationError } from './errors.ts';

/**
 * Status given to local validation failures: the one the service uses for a body that fails
 * its own zod validation, so callers classify both alike (terminal, nothing was written).
 */
export const LOCAL_VALIDATION_STATUS = 422;

/** Parses `input` with `schema`; returns the parsed (unknown keys stripped) value or throws. */
export function validateRequest<S extends z.ZodType>(
  schema: S,
  input: unknown,
  operation: string,
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = toIssues(result.error.issues);
  throw new RequestValidationError({
    operation,
    status: LOCAL_VALIDATION_STATUS,
    local: true,
    message: `invalid request (not sent): ${formatIssues(issues)}`,
    issues,
  });
}

/**
 * Encodes one path parameter. An empty value is rejected: `/workspace/` would address a
 * different route (the service ignores trailing slashes).
 */
export function seg(value: string, name: string, operation: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new RequestValidationError({
      operation,
      status: LOCAL_VALIDATION_STATUS,
      local: true,
      message: `invalid request (not sent): ${name} must be a non-empty string`,
      issues: [{ code: 'too_small', path: [name], message: 'must be a non-empty string' }],
    });
  }
  return encodeURIComponent(value);
}

/**
 * Wraps `schema` in the service's response envelope `{ [key]: value }` and unwraps it, so
 * API methods return the inner object.
 */
export function envelope<S extends z.ZodType>(key: string, schema: S): z.ZodType<z.output<S>> {
  return z.object({ [key]: schema }).transform((r) => r[key] as z.output<S>);
}
