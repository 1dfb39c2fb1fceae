/**
 * Spec validation and the policies every managed kind shares (deletion, management, polling).
 */
import type { z } from 'zod';
import { TerminalError } from '../runtime/errors.ts';
import { parseDuration } from '../runtime/duration.ts';
import type { ManagedSpecFields } from './external-client.ts';
import { managedReasons } from './reasons.ts';

/** Condition reason for a spec the schema rejects. */
export const INVALID_SPEC = managedReasons.names.InvalidSpec;

/** `spec.a.b[2]: message; spec.c: message` — precise, stable, one line. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path
        .map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`))
        .join('');
      return `spec${path}: ${issue.message}`;
    })
    .join('; ');
}

/** Parses the spec, or throws `TerminalError` (`InvalidSpec`) with every issue. */
export function parseSpec<Spec>(schema: z.ZodType<Spec>, spec: unknown): Spec {
  const result = schema.safeParse(spec ?? {});
  if (!result.success)
    throw new TerminalError(INVALID_SPEC, `invalid spec: ${formatIssues(result.error.issues)}`);
  return result.data;
}

/** True when the spec forbids writes to the service. */
export function isObserveOnly(spec: ManagedSpecFields | undefined): boolean {
  return spec?.managementPolicy === 'ObserveOnly';
}

/** The effective poll interval; an unparsable value is an `InvalidSpec` error. */
export function pollIntervalOf(spec: ManagedSpecFields, defaultMs: number): number {
  if (spec.pollInterval === undefined) return defaultMs;
  try {
    const ms = parseDuration(spec.pollInterval);
    return ms > 0 ? ms : defaultMs;
  } catch (error) {
    throw new TerminalError(INVALID_SPEC, `invalid spec: spec.pollInterval: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The deletion policy from a parsed spec, or, when the spec is invalid, from the raw value if it
 * is one of the two known words (so a broken spec can still be deleted with `Orphan`).
 */
export function deletionPolicyOf(spec: unknown, defaultPolicy: 'Delete' | 'Orphan'): 'Delete' | 'Orphan' {
  const value = (spec as ManagedSpecFields | undefined)?.deletionPolicy;
  return value === 'Delete' || value === 'Orphan' ? value : defaultPolicy;
}
