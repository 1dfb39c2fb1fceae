/**
 * Connection: a namespaced service URL plus credentials. Reconciled by the direct
 * reconciler (it mirrors no service object): Ready once the service accepts the credentials.
 * Held by its dependents: once deleted, it stays until no resource using it holds Coffer's
 * finalizer (`src/managed/direct/deletion.ts`).
 */
import { connectionKind, type ConnectionSpec } from '../../api/v1alpha1/index.ts';
import type { DirectKindController } from '../../managed/direct/kind.ts';
import { readsConfigMaps, readsSecrets } from '../rbac-needs.ts';
import type { KindRegistration } from '../registration.ts';
import { configMapKeyRefs, secretKeyRefs } from '../../managed/connections/credentials.ts';
import { serviceAccountLoginRbac } from './rbac.ts';
import { connectionReferences } from './references.ts';
import { connectionSync, type ConnectionStatusFields } from './sync.ts';
import { connectionReasons } from './reasons.ts';

export const connectionController: DirectKindController<ConnectionSpec, ConnectionStatusFields> = {
  definition: connectionKind,
  createSync: (services) => connectionSync<ConnectionSpec>('Connection', services),
  referencedSecrets: (obj) => secretKeyRefs(obj.spec, obj.metadata.namespace),
  referencedConfigMaps: (obj) => configMapKeyRefs(obj.spec, obj.metadata.namespace),
  heldByDependents: true,
};

export const connectionRegistration: KindRegistration = {
  definition: connectionController.definition,
  runtime: { reconciler: 'direct', controller: connectionController },
  references: connectionReferences,
  rbac: [
    readsSecrets('the credentials it references'),
    readsConfigMaps('the CA bundle of a custom service TLS root'),
    ...serviceAccountLoginRbac,
  ],
  reasons: connectionReasons,
  protectsIdentity: {
    statusField: 'id',
    why: (name) => `the identity Connection ${name} authenticates as`,
  },
  sample: 'config/samples/connection.yaml',
  sampleLeftOut: 'the sandbox gets its Connection "coffer" from its own Bootstrap',
  docPage: 'docs/kinds/connection.md',
  summary:
    'Where the service is and how to authenticate (token, universal auth, or a ServiceAccount token through ' +
    'Kubernetes, JWT or OIDC auth).',
};
