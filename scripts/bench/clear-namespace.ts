/**
 * Empties a namespace of the benchmark once its run is measured, so the next run starts on a
 * control plane holding no other run's objects (kube-apiserver's watch caches and etcd's live
 * keys back at the same size). The controller that settled the namespace must be stopped first:
 * finalizers are removed without their clean-up (the service the run wrote to is thrown away).
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { group, version } from '../../src/api/v1alpha1/index.ts';
import { forEachLimited, type BenchEnv } from './operator-setup.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const plurals = ['secretbatches', 'identities', 'projects', 'connections'];

interface Listed {
  readonly items: { metadata: { name: string; finalizers?: string[] } }[];
}

/** Removes the finalizers of every `plural` object in `namespace`, then deletes them all. */
async function clearKind(env: BenchEnv, namespace: string, plural: string): Promise<void> {
  const kind = { group, version, plural, namespace };
  const list = (await env.custom.listNamespacedCustomObject(kind)) as Listed;
  const held = list.items.filter((item) => (item.metadata.finalizers ?? []).length > 0);
  await forEachLimited(held.length, 32, (i) =>
    env.custom.patchNamespacedCustomObject(
      { ...kind, name: held[i]?.metadata.name ?? '', body: { metadata: { finalizers: null } } },
      mergePatch,
    ),
  );
  await env.custom.deleteCollectionNamespacedCustomObject(kind);
}

/** Deletes every coffer.dev object (finalizers removed), Secret and Event of `namespace`; the namespace stays, empty. */
export async function clearNamespace(env: BenchEnv, namespace: string): Promise<void> {
  for (const plural of plurals) await clearKind(env, namespace, plural);
  await env.core.deleteCollectionNamespacedSecret({ namespace });
  await env.core.deleteCollectionNamespacedEvent({ namespace });
}
