/**
 * Permission rules as the service returns them. The service stores rules packed and unpacks them
 * for every response (roles, additional privileges), and unpacking always yields `inverted` as a
 * boolean; the devserver stores rules normalised with `inverted` only when true, so responses go
 * through {@link returnedRules}.
 */
import type { Conditions, PermissionRule } from './permission-rules.ts';

/** A rule in a response: `{subject, action[], conditions?, inverted}`. */
export interface ReturnedRule {
  subject: string;
  action: string[];
  conditions?: Conditions;
  inverted: boolean;
}

/** The response form of stored rules: `inverted` always present (false unless a denial). */
export function returnedRules(rules: readonly PermissionRule[]): ReturnedRule[] {
  return rules.map((rule) => ({
    subject: rule.subject,
    action: [...rule.action],
    ...(rule.conditions ? { conditions: rule.conditions } : {}),
    inverted: rule.inverted === true,
  }));
}
