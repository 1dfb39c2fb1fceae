/**
 * ClusterConnection: a cluster-scoped Connection shared with the namespaces in
 * `spec.allowedNamespaces`. Its own reconcile is the Connection's (verify the credentials); the
 * namespace admission happens when a resource resolves its `connectionRef` (see
 * `src/managed/connections/resolver.ts` and `admission.ts`). Held by its dependents in every namespace,
 * like a Connection.
 */
import { clusterConnectionKind, type ClusterConnectionSpec } from '../../api/v1alpha1/index.ts';
import type { DirectKindController } from '../../managed/direct/kind.ts';
import { readsConfigMaps, readsSecrets } from '../rbac-needs.ts';
import type { KindRegistration } from '../registration.ts';
import { configMapKeyRefs, secretKeyRefs } from '../../managed/connections/credentials.ts';
import { serviceAccountLoginRbac } from '../connection/rbac.ts';
import { connectionReferences } from '../connection/references.ts';
import { connectionSync, type ConnectionStatusFields } from '../connection/sync.ts';
import { connectionRegistration } from '../connection/index.ts';

export const clusterConnectionController: DirectKindController<
  ClusterConnectionSpec,
  ConnectionStatusFields
> = {
  definition: clusterConnectionKind,
  createSync: (services) => connectionSync<ClusterConnectionSpec>('ClusterConnection', services),
  referencedSecrets: (obj) => secretKeyRefs(obj.spec, undefined),
  referencedConfigMaps: (obj) => configMapKeyRefs(obj.spec, undefined),
  heldByDependents: true,
};

export const clusterConnectionRegistration: KindRegistration = {
  definition: clusterConnectionController.definition,
  runtime: { reconciler: 'direct', controller: clusterConnectionController },
  references: connectionReferences,
  rbac: [
    readsSecrets('the credentials it references'),
    readsConfigMaps('the CA bundle of a custom service TLS root'),
    ...serviceAccountLoginRbac,
    {
      apiGroup: '',
      resource: 'namespaces',
      verbs: ['list', 'watch'],
      clusterScoped: true,
      why:
        'admits namespaces by label selector: namespace labels come from a watched cache ' +
        '(list + watch, no single gets); read-only',
    },
  ],
  // The Connection's sync, so the Connection's reasons.
  reasons: connectionRegistration.reasons,
  protectsIdentity: {
    statusField: 'id',
    why: (name) => `the identity ClusterConnection ${name} authenticates as`,
  },
  sample: 'config/samples/cluster-connection.yaml',
  docPage: 'docs/kinds/cluster-connection.md',
  summary: 'The same, shared with the namespaces it admits.',
};
