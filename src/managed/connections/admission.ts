/**
 * Which namespaces may use a ClusterConnection: those named in `allowedNamespaces.names` plus
 * those whose labels match `allowedNamespaces.selector` (Kubernetes label-selector semantics:
 * matchLabels and matchExpressions ANDed; `{}` matches every namespace).
 */
import { managedReasons } from '../reasons.ts';

/** A Kubernetes label selector. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    readonly values?: readonly string[];
  }[];
}

/** `spec.allowedNamespaces` of a ClusterConnection. */
export interface AllowedNamespaces {
  readonly names?: readonly string[];
  readonly selector?: LabelSelector;
}

/** Condition reason of a resource whose namespace the ClusterConnection does not admit. */
export const NAMESPACE_NOT_ALLOWED = managedReasons.names.NamespaceNotAllowed;

type Requirement = NonNullable<LabelSelector['matchExpressions']>[number];

function requirementHolds(requirement: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const present = Object.hasOwn(labels, requirement.key);
  const value = labels[requirement.key];
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'Exists':
      return present;
    case 'DoesNotExist':
      return !present;
    case 'In':
      return present && value !== undefined && values.includes(value);
    case 'NotIn':
      return !present || value === undefined || !values.includes(value);
  }
}

/** True when `labels` satisfy `selector`. */
export function matchesSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((requirement) => requirementHolds(requirement, labels));
}

/**
 * True when `namespace` (with `labels`, undefined when the namespace is unknown) may use the
 * ClusterConnection. An unknown namespace can match by name only.
 */
export function isNamespaceAllowed(
  allowed: AllowedNamespaces,
  namespace: string,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  if (allowed.names?.includes(namespace)) return true;
  if (!allowed.selector || !labels) return false;
  return matchesSelector(allowed.selector, labels);
}
