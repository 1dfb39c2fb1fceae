/**
 * Spec permission rules → the service's v2 rule request form. The service accepts `action` as a
 * string or a list and normalises it; we always send a list, drop empty conditions and send
 * `inverted` only when true, so what we send is already in the service's stored spelling.
 */
import type { PermissionRuleInput } from '../../client/index.ts';

/** Spec rule conditions (`environment`, `secretPath.$glob`). */
interface SpecConditions {
  readonly environment?: string | undefined;
  readonly secretPath?: { readonly $glob: string } | undefined;
}

/** A rule as the CRD specs hold it. */
export interface SpecRule {
  readonly subject: string;
  readonly action: string | readonly string[];
  readonly conditions?: SpecConditions | undefined;
  readonly inverted?: boolean | undefined;
}

function conditionsOf(conditions: SpecConditions | undefined): Record<string, unknown> | undefined {
  if (!conditions) return undefined;
  const out: Record<string, unknown> = {};
  if (conditions.environment !== undefined) out.environment = conditions.environment;
  if (conditions.secretPath !== undefined) out.secretPath = { $glob: conditions.secretPath.$glob };
  return Object.keys(out).length > 0 ? out : undefined;
}

/** One spec rule as sent to the service. */
export function ruleRequest(rule: SpecRule): PermissionRuleInput {
  const conditions = conditionsOf(rule.conditions);
  return {
    subject: rule.subject,
    action: typeof rule.action === 'string' ? [rule.action] : [...rule.action],
    ...(conditions ? { conditions } : {}),
    ...(rule.inverted ? { inverted: true } : {}),
  };
}

/** Spec rules as sent to the service. */
export function rulesRequest(rules: readonly SpecRule[]): PermissionRuleInput[] {
  return rules.map(ruleRequest);
}
