/**
 * Reading and writing one custom resource kind over plain JSON requests. The reconciler only
 * sees the `ObjectReader` and `ObjectPatcher` interfaces, so production can read from an informer
 * cache while tests read with plain GETs or from memory.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { kubernetesStatus } from '../runtime/errors.ts';
import { collectionPath, kubeRequest } from '../runtime/kube-request.ts';
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

/** The path of one object of `resource`, e.g. `/apis/coffer.dev/v1alpha1/namespaces/ns/projects/p`. */
export function objectPath(resource: ResourceKind, ref: ObjectRef): string {
  if (resource.namespaced && !ref.namespace)
    throw new Error(
      `cannot address ${resource.kind} ${ref.name}: it is namespaced but no namespace was given`,
    );
  const collection = collectionPath(resource, resource.namespaced ? ref.namespace : undefined);
  return `${collection}/${encodeURIComponent(ref.name)}`;
}

/** An ObjectReader that GETs from the API server (tests; the informer cache replaces it in production). */
export function customObjectReader<T extends KubeObject>(
  kubeConfig: KubeConfig,
  resource: ResourceKind,
): ObjectReader<T> {
  return {
    async get(request) {
      try {
        return (await kubeRequest(kubeConfig, { method: 'GET', path: objectPath(resource, request) })) as T;
      } catch (error) {
        if (kubernetesStatus(error) === 404) return undefined;
        throw error;
      }
    },
  };
}

/**
 * An ObjectPatcher for one custom resource kind (main resource and status subresource): plain
 * JSON requests (`kubeRequest`), the operator's most frequent Kubernetes writes.
 */
export function customObjectPatcher<T extends KubeObject>(
  kubeConfig: KubeConfig,
  resource: ResourceKind,
): ObjectPatcher<T> {
  const patch = async (path: string, body: unknown, contentType: string): Promise<T> =>
    (await kubeRequest(kubeConfig, { method: 'PATCH', path, body, contentType })) as T;
  return {
    jsonPatch: (ref, operations: readonly JsonPatchOperation[]) =>
      patch(objectPath(resource, ref), operations, 'application/json-patch+json'),
    mergePatch: (ref, body) => patch(objectPath(resource, ref), body, 'application/merge-patch+json'),
    mergePatchStatus: (ref, body) =>
      patch(`${objectPath(resource, ref)}/status`, body, 'application/merge-patch+json'),
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
