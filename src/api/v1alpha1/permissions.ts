/**
 * Permission rules (used by AdditionalPrivilege, ProjectRole and ProjectTemplate roles) and
 * temporary access windows (privileges and project memberships).
 */
import { z } from 'zod';
import { accessRangePattern, parseAccessRange } from './duration.ts';
import { boundedAccessRange, boundedTime, maxAccessRangeYears, unstorableEnd } from './time-bounds.ts';
import { slug } from './common.ts';

const actionName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z][A-Za-z-]*$/, 'must be an action name such as read, readValue or subscribe-on-created');

/**
 * `action`: one action name or a list of them. A structural schema cannot say "string or list":
 * the node is left untyped with `x-kubernetes-preserve-unknown-fields`, which makes the API server
 * store either shape. It cannot check the shape either (CEL rules need a typed node), so zod does:
 * a malformed action is reported by the operator as an InvalidSpec condition.
 */
export const permissionAction = z
  .union([actionName, z.array(actionName).min(1).max(32)])
  .meta({ 'x-kubernetes-preserve-unknown-fields': true })
  .describe(
    'One action or a list of 1–32 actions the rule grants (or, with inverted, denies), e.g. read or ' +
      '[readValue, create, edit, delete]. Secret actions: read, describeSecret, readValue, create, ' +
      'edit, delete; secret-event actions: subscribe-on-created, subscribe-on-updated, ' +
      'subscribe-on-deleted, subscribe-on-import-mutations. A single action and a one-element list ' +
      'are equivalent. The API server accepts any value here; a malformed one is reported in the ' +
      'Synced condition with reason InvalidSpec.',
  );

/** Conditions narrowing a permission rule to an environment and a secret path glob. */
export const permissionConditions = z
  .object({
    environment: slug(1, 64)
      .optional()
      .describe('Environment slug the rule applies to, e.g. dev. Unset: every environment.'),
    secretPath: z
      .object({
        $glob: z
          .string()
          .min(1)
          .max(1024)
          .describe(
            'Glob over secret folder paths, e.g. /** for everything or /app/* for one level under /app.',
          ),
      })
      .optional()
      .describe('Secret folder paths the rule applies to. Unset: every path.'),
  })
  .describe('Restricts the rule to an environment and/or secret paths. Unset: the rule applies everywhere.');

/** One permission rule. Compared semantically (action list vs single action, default inverted). */
export const permissionRule = z.object({
  subject: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z][a-z-]*$/, 'must be a subject name such as secrets or secret-folders')
    .describe(
      'What the rule is about, e.g. secrets, secret-folders, secret-imports, secret-events, environments, role.',
    ),
  action: permissionAction,
  conditions: permissionConditions.optional(),
  inverted: z
    .boolean()
    .default(false)
    .describe('When true the rule denies the actions instead of granting them. Default: false.'),
});

/** A list of permission rules. */
export const permissionRules = z.array(permissionRule).max(64);

/** A temporary access window starting at `startTime` (or when granted) and lasting `range`. */
export const temporaryWindow = z
  .object({
    range: boundedAccessRange(
      z.string().max(15).regex(accessRangePattern, 'must be a positive duration such as 30m, 1h or 7d'),
      'range',
    ).describe(
      'Length of the access window: a positive integer followed by ms, s, m, h, d, w or y, e.g. 30m, 8h or 7d; ' +
        `at most ${maxAccessRangeYears} years.`,
    ),
    startTime: boundedTime(z.iso.datetime(), 'startTime')
      .optional()
      .describe(
        'Start of the window as an RFC 3339 UTC time, e.g. 2025-01-31T09:00:00Z, from 1970 on. Unset: the time ' +
          'the grant is made. The window must end by 9999-12-31T23:59:59Z.',
      ),
  })
  .superRefine((window, ctx) => {
    if (window.startTime === undefined) return;
    const problem = windowEndProblem(Date.parse(window.startTime), window.range);
    if (problem) ctx.addIssue({ code: 'custom', path: ['startTime'], message: problem });
  })
  .describe('Makes the grant temporary: it is effective from startTime for range. Unset: permanent.');

/**
 * Why a window from `startMs` lasting `range` cannot be stored (its end is past what Kubernetes
 * and the service hold), or undefined when it can or the range does not parse.
 */
export function windowEndProblem(startMs: number, range: string): string | undefined {
  if (Number.isNaN(startMs)) return undefined;
  let lengthMs: number;
  try {
    lengthMs = parseAccessRange(range);
  } catch {
    return undefined;
  }
  return unstorableEnd(startMs, lengthMs, `the window from ${new Date(startMs).toISOString()} for ${range}`);
}
