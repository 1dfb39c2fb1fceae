/**
 * The state of the sandbox's resources as the API server has it: the Ready and Synced conditions
 * of each, whether they were computed for the current generation, and whether this operator build
 * runs a controller for the kind at all (kinds still being written show as waiting, never fail).
 * A resource is settled when both Ready and Synced are True for its current generation: Ready
 * alone can stay True while the last reconcile failed (Synced=False says why).
 */
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { findKind, group, version } from '../api/v1alpha1/index.ts';
import type { Condition } from '../runtime/conditions.ts';
import { ANNOTATION_EXTERNAL_ID } from '../runtime/object-meta.ts';
import { resourceKey } from './blocked.ts';
import type { SandboxResource } from './samples.ts';

/** One resource's row. */
export interface ResourceState extends SandboxResource {
  /** True when the operator runs a controller for this kind. */
  readonly registered: boolean;
  /** True when it cannot get Ready in this build: no controller for it or for a dependency. */
  readonly blocked: boolean;
  readonly exists: boolean;
  readonly ready?: Condition;
  readonly synced?: Condition;
  /** True when Ready=True was computed for the current `metadata.generation`. */
  readonly isReady: boolean;
  /** True when Synced=True was computed for the current `metadata.generation`. */
  readonly isSynced: boolean;
  /** The `coffer.dev/external-id` annotation, once the operator recorded one. */
  readonly externalId?: string;
}

interface Listed {
  metadata: { name: string; namespace?: string; generation?: number; annotations?: Record<string, string> };
  status?: { conditions?: Condition[] };
}

/** True when the resource is Ready and Synced for its current generation. */
export function isSettled(state: ResourceState): boolean {
  return state.isReady && state.isSynced;
}

/** True when every resource that can get Ready in this build is settled (Ready and Synced). */
export function allSettled(states: readonly ResourceState[]): boolean {
  return states.every((state) => state.blocked || isSettled(state));
}

function current(condition: Condition | undefined, generation: number | undefined): boolean {
  return condition?.observedGeneration === undefined || condition.observedGeneration === generation;
}

function stateOf(
  resource: SandboxResource,
  flags: { registered: boolean; blocked: boolean },
  found: Listed | undefined,
): ResourceState {
  const conditions = found?.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const synced = conditions.find((c) => c.type === 'Synced');
  const generation = found?.metadata.generation;
  const isReady = ready?.status === 'True' && current(ready, generation);
  const isSynced = synced?.status === 'True' && current(synced, generation);
  const externalId = found?.metadata.annotations?.[ANNOTATION_EXTERNAL_ID];
  return {
    ...resource,
    ...flags,
    exists: found !== undefined,
    ready,
    synced,
    isReady,
    isSynced,
    ...(externalId ? { externalId } : {}),
  };
}

async function listKind(
  api: CustomObjectsApi,
  kind: string,
  namespaces: readonly (string | undefined)[],
): Promise<Listed[]> {
  const definition = findKind(kind);
  if (!definition) return [];
  const at = { group, version, plural: definition.plural };
  if (definition.scope === 'Cluster') {
    const list = (await api.listClusterCustomObject(at)) as { items: Listed[] };
    return list.items;
  }
  const lists = await Promise.all(
    [...new Set(namespaces)].map(
      async (namespace) =>
        ((await api.listNamespacedCustomObject({ ...at, namespace: namespace ?? '' })) as { items: Listed[] })
          .items,
    ),
  );
  return lists.flat();
}

/**
 * Reads the state of `resources` (one list call per kind and namespace). `registeredKinds` are
 * the kinds the running operator reconciles; `blocked` the keys of resources that cannot get
 * Ready in this build (see `blocked.ts`).
 */
export async function readStates(
  api: CustomObjectsApi,
  resources: readonly SandboxResource[],
  registeredKinds: ReadonlySet<string>,
  blocked: ReadonlySet<string>,
): Promise<ResourceState[]> {
  const kinds = [...new Set(resources.map((r) => r.kind))];
  const listed = new Map<string, Listed[]>();
  await Promise.all(
    kinds.map(async (kind) => {
      const namespaces = resources.filter((r) => r.kind === kind).map((r) => r.namespace);
      listed.set(kind, await listKind(api, kind, namespaces));
    }),
  );
  return resources.map((resource) => {
    const found = listed
      .get(resource.kind)
      ?.find(
        (item) =>
          item.metadata.name === resource.name &&
          (item.metadata.namespace ?? undefined) === resource.namespace,
      );
    const registered = registeredKinds.has(resource.kind);
    return stateOf(
      resource,
      { registered, blocked: !registered || blocked.has(resourceKey(resource)) },
      found,
    );
  });
}
