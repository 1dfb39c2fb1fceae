/**
 * The operator's informers: one per coffer.dev kind (so every kind can read every other from
 * memory), plus Secrets and ConfigMaps (metadata and a data hash only, see `secret-cache.ts`; the
 * values of referenced SecretBatch sources beside them, see `secret-values.ts`) and
 * Namespaces (labels, for ClusterConnection admission). Custom resources are cached with their
 * repeated strings shared (`intern.ts`). Namespaced informers honour `--namespaces` through the
 * manager.
 */
import { allKinds, group, version, type KindDefinition } from '../api/v1alpha1/index.ts';
import type { ManagedObject } from '../managed/external-client.ts';
import type { ResourceKind } from '../managed/kube-objects.ts';
import type { Informer, KubeObject } from '../runtime/informer.ts';
import { internRepeatedStrings, StringInterner } from '../runtime/intern.ts';
import type { Manager } from '../runtime/manager.ts';
import {
  decodeSecretData,
  slimConfigMap,
  slimNamespace,
  slimSecret,
  type PayloadMeta,
} from './secret-cache.ts';
import { SecretValueCache } from './secret-values.ts';

/** Every informer the operator uses. */
export interface OperatorInformers {
  /** By kind name, e.g. `Project`. */
  readonly kinds: ReadonlyMap<string, Informer<ManagedObject<unknown>>>;
  readonly secrets: Informer<PayloadMeta>;
  /** The values of the Secrets the operator reads on every reconcile, fed by `secrets`. */
  readonly secretValues: SecretValueCache;
  readonly configMaps: Informer<PayloadMeta>;
  readonly namespaces: Informer<KubeObject>;
}

/** The API coordinates of a kind. */
export function resourceOf(definition: KindDefinition): ResourceKind {
  return {
    group,
    version,
    plural: definition.plural,
    kind: definition.kind,
    namespaced: definition.scope === 'Namespaced',
  };
}

// Smaller list pages for Secrets and ConfigMaps: a page is held in memory with its values until
// the transform drops them, and Helm release Secrets can be hundreds of kilobytes each.
const payloadPageSize = 100;

/** Creates (registers on `manager`) every informer. */
export function createInformers(
  manager: Manager,
  definitions: readonly KindDefinition[] = allKinds,
): OperatorInformers {
  const kinds = new Map<string, Informer<ManagedObject<unknown>>>();
  // One table for every kind: they share apiVersion, finalizer, reasons and connection names.
  const interner = new StringInterner();
  for (const definition of definitions) {
    const resource = resourceOf(definition);
    kinds.set(
      definition.kind,
      manager.informer<ManagedObject<unknown>>({
        name: `${definition.plural}.${group}`,
        resource,
        transform: (obj) => internRepeatedStrings(obj, interner),
      }),
    );
  }
  // The transform is the one place that sees a Secret's values, so it also feeds the value cache;
  // it runs for the last state of a deleted Secret too, which the delete handler then forgets.
  const secretValues = new SecretValueCache();
  const secrets = manager.informer<PayloadMeta>({
    name: 'secrets',
    resource: { group: '', version: 'v1', plural: 'secrets', namespaced: true },
    transform: (obj) => {
      const decoded = decodeSecretData(obj);
      secretValues.observe(obj, decoded);
      return slimSecret(obj, decoded);
    },
    pageSize: payloadPageSize,
  });
  secrets.on('delete', (obj) => secretValues.forget(obj.metadata?.namespace, obj.metadata?.name ?? ''));
  const configMaps = manager.informer<PayloadMeta>({
    name: 'configmaps',
    resource: { group: '', version: 'v1', plural: 'configmaps', namespaced: true },
    transform: (obj) => slimConfigMap(obj),
    pageSize: payloadPageSize,
  });
  const namespaces = manager.informer<KubeObject>({
    name: 'namespaces',
    resource: { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
    transform: slimNamespace,
  });
  return { kinds, secrets, secretValues, configMaps, namespaces };
}
