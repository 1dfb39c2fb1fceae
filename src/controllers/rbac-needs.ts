/**
 * The Kubernetes permissions kinds commonly need, as {@link RbacNeed} data for their
 * registrations, and those the operator needs for every kind. `npm run generate` merges them into
 * the chart's and config/rbac's rules (one rule per resource, verbs united).
 */
import type { RbacNeed } from './registration.ts';

/** Reads Secrets it references (credentials, values); watched so a change applies at once. */
export function readsSecrets(what: string): RbacNeed {
  return { apiGroup: '', resource: 'secrets', verbs: ['get', 'list', 'watch'], why: `reads ${what}` };
}

/**
 * Publishes Secrets (owned, replaced whole: no patch) and deletes one the spec no longer asks for;
 * watched so an edited or deleted Secret is repaired at once.
 */
export function publishesSecrets(what: string): RbacNeed {
  return {
    apiGroup: '',
    resource: 'secrets',
    verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
    why: `publishes ${what}`,
  };
}

/** Reads ConfigMaps it references (CA bundles). */
export function readsConfigMaps(what: string): RbacNeed {
  return { apiGroup: '', resource: 'configmaps', verbs: ['get', 'list', 'watch'], why: `reads ${what}` };
}

/** What the rules on a resource have in common, said once above the merged rule. */
export const resourceNotes: Readonly<Record<string, string>> = {
  secrets:
    'Published Secrets are replaced whole (no patch) and deleted when the spec no longer asks ' +
    'for them; every Secret a resource uses is watched, so a change or deletion is acted on at once.',
  events: 'Events about cluster-scoped objects are recorded in the "default" namespace.',
};

/**
 * What the operator needs for every kind: recording Events on each resource. Events about
 * cluster-scoped objects go to the `default` namespace, as Kubernetes does.
 */
export const everyKindRbac: readonly RbacNeed[] = [
  {
    apiGroup: '',
    resource: 'events',
    verbs: ['create', 'patch'],
    why: 'every kind: records what happened on each resource (created, updated, failures)',
  },
];

/**
 * Leader election, granted by a Role in the Lease's namespace only. No delete: a stepping-down
 * leader releases the Lease by updating it. (No Events there: the operator records none about
 * leadership; test/integration/rbac.test.ts fails for a rule that no scenario needs.)
 */
export const leaderElectionRbac: readonly RbacNeed[] = [
  {
    apiGroup: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['get', 'create', 'update'],
    why: 'leader election: acquire (create), read and renew (update) the Lease; released by an update',
  },
];
