/**
 * Reading and writing one custom resource kind through `CustomObjectsApi`. The reconciler only
 * sees the `ObjectReader` and `ObjectPatcher` interfaces, so production can read from an informer
 * cache while tests read with plain GETs or from memory.
 */
import { PatchStrategy, setHeaderOptions, type CustomObjectsApi } from '@kubernetes/client-node';
import { kubernetesStatus } from '../runtime/errors.ts';
import type { JsonPatchOperation, KubeObject, ObjectPatcher, ObjectRef } from '../runtime/object-meta.ts';
import type { Request } from '../runtime/reconcile.ts';

/** The API coordinates of a custom resource kind. */
export interface ResourceKind {
  readonly group: string;
  readonly version: string;
  /** Lowercase plural, e.g. `projects`. */
  readonly plural: string;
  /** CamelCase kind, e.g. `Project`. */
  readonly kind: string;
  readonly namespaced: boolean;
}

/** Reads the current state of one object; undefined when it does not exist. */
export interface ObjectReader<T> {
  get(request: Request): Promise<T | undefined>;
}

type Coordinates = { group: string; version: string; plural: string; name: string; namespace?: string };

function coordinates(resource: ResourceKind, ref: ObjectRef): Coordinates {
  const base = { group: resource.group, version: resource.version, plural: resource.plural, name: ref.name };
  if (!resource.namespaced) return base;
  if (!ref.namespace)
    throw new Error(
      `cannot address ${resource.kind} ${ref.name}: it is namespaced but no namespace was given`,
    );
  return { ...base, namespace: ref.namespace };
}

const mergePatchOptions = () => setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatchOptions = () => setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

/** An ObjectReader that GETs from the API server (tests; the informer cache replaces it in production). */
export function customObjectReader<T extends KubeObject>(
  api: CustomObjectsApi,
  resource: ResourceKind,
): ObjectReader<T> {
  return {
    async get(request) {
      const at = coordinates(resource, request);
      try {
        const obj: unknown = at.namespace
          ? await api.getNamespacedCustomObject({ ...at, namespace: at.namespace })
          : await api.getClusterCustomObject(at);
        return obj as T;
      } catch (error) {
        if (kubernetesStatus(error) === 404) return undefined;
        throw error;
      }
    },
  };
}

/** An ObjectPatcher for one custom resource kind (main resource and status subresource). */
export function customObjectPatcher<T extends KubeObject>(
  api: CustomObjectsApi,
  resource: ResourceKind,
): ObjectPatcher<T> {
  async function patch(
    ref: ObjectRef,
    body: unknown,
    status: boolean,
    options: ReturnType<typeof mergePatchOptions>,
  ): Promise<T> {
    const at = coordinates(resource, ref);
    let result: unknown;
    if (at.namespace) {
      const params = { ...at, namespace: at.namespace, body };
      result = status
        ? await api.patchNamespacedCustomObjectStatus(params, options)
        : await api.patchNamespacedCustomObject(params, options);
    } else {
      const params = { ...at, body };
      result = status
        ? await api.patchClusterCustomObjectStatus(params, options)
        : await api.patchClusterCustomObject(params, options);
    }
    return result as T;
  }
  return {
    jsonPatch: (ref, operations: readonly JsonPatchOperation[]) =>
      patch(ref, operations, false, jsonPatchOptions()),
    mergePatch: (ref, body) => patch(ref, body, false, mergePatchOptions()),
    mergePatchStatus: (ref, body) => patch(ref, body, true, mergePatchOptions()),
  };
}

/** Anything that answers `get(namespace, name)` from memory, such as the runtime's `Informer`. */
export interface ObjectCache<T> {
  get(namespace: string | undefined, name: string): T | undefined;
}

/**
 * An ObjectReader over an informer cache (production). Objects are shared with the cache and
 * must not be mutated; the reconciler never does.
 */
export function cacheReader<T>(cache: ObjectCache<T>): ObjectReader<T> {
  return { get: (request) => Promise.resolve(cache.get(request.namespace, request.name)) };
}
