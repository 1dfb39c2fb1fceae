/**
 * Bootstrap: one-time initialisation of a fresh service instance, with the resulting credentials
 * written to an owned Secret and, optionally, a Connection using them. Reconciled by the
 * direct reconciler (`src/managed/direct/`, see `sync.ts`).
 */
import { bootstrapKind, type BootstrapSpec } from '../../api/v1alpha1/index.ts';
import type { DirectKindController } from '../../managed/direct/kind.ts';
import { publishesSecrets, readsConfigMaps, readsSecrets } from '../rbac-needs.ts';
import type { KindRegistration } from '../registration.ts';
import { configMapKeyRefs } from '../../managed/connections/credentials.ts';
import { bootstrapSync, type BootstrapStatusFields } from './sync.ts';
import { bootstrapReasons } from './reasons.ts';

export const bootstrapController: DirectKindController<BootstrapSpec, BootstrapStatusFields> = {
  definition: bootstrapKind,
  createSync: (services) => bootstrapSync(services),
  // The output Secret too: a foreign Secret of that name going away lets the Bootstrap proceed.
  referencedSecrets: (obj) => {
    const namespace = obj.metadata.namespace;
    const refs = [obj.spec.passwordSecretRef, { name: obj.spec.outputSecretName }];
    if (obj.spec.tls?.caBundleSecretRef) refs.push(obj.spec.tls.caBundleSecretRef);
    return refs.map((ref) => ({ name: ref.name, ...(namespace ? { namespace } : {}) }));
  },
  referencedConfigMaps: (obj) => configMapKeyRefs(obj.spec, obj.metadata.namespace),
  ownedKinds: ['Connection'],
};

export const bootstrapRegistration: KindRegistration = {
  definition: bootstrapController.definition,
  runtime: { reconciler: 'direct', controller: bootstrapController },
  references: [],
  rbac: [
    readsSecrets('the admin password and the CA bundle it references'),
    publishesSecrets('the admin token (spec.outputSecretName)'),
    readsConfigMaps('the CA bundle of a custom service TLS root'),
    {
      apiGroup: 'coffer.dev',
      resource: 'connections',
      verbs: ['create', 'update'],
      why:
        'with createConnection: true, creates the Connection it produces (owned by the Bootstrap, ' +
        'so garbage collection removes it) and replaces its spec when the Bootstrap changes',
    },
  ],
  reasons: bootstrapReasons,
  protectsIdentity: {
    statusField: 'identityId',
    why: (name) => `the instance-admin identity Bootstrap ${name} created`,
  },
  sample: 'config/samples/bootstrap.yaml',
  sampleLeftOut: 'the sandbox runs its own Bootstrap',
  docPage: 'docs/kinds/bootstrap.md',
  summary: 'One-time set-up of a fresh service instance; writes the admin token and a Connection.',
};
