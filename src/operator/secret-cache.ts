/**
 * Secrets and ConfigMaps in the operator's informer caches, without their values.
 *
 * The operator watches every Secret it may read or write (Connection credentials, SecretBatch
 * sources, published outputs) to react within seconds, but caching their data would cost memory
 * proportional to everything stored in the cluster (Helm releases, service-account tokens...) and
 * keep secret values in the heap. So the informers keep only metadata, the type and a sha256 of
 * the decoded data (`dataHash`, the same function the SecretWriter stamps into
 * `coffer.dev/data-hash`). Values are held only for the Secrets `secret-values.ts` wants (those
 * SecretBatches reference); others are read with a GET when a reconcile needs them.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ConfigMapSource, SecretSource } from '../controllers/kind-controller.ts';
import { kubernetesStatus } from '../runtime/errors.ts';
import type { UpdatePredicate } from '../runtime/event-sources.ts';
import type { KubeObject } from '../runtime/informer.ts';
import { kubeRequest } from '../runtime/kube-request.ts';
import type { ObjectMeta } from '../runtime/object-meta.ts';
import { dataHash } from '../runtime/secret-writer.ts';
import type { SecretValueCache } from './secret-values.ts';

/** A Secret or ConfigMap as cached: metadata, type and the hash of its decoded data. */
export interface PayloadMeta extends KubeObject {
  metadata?: ObjectMeta;
  /** Secret type (`Opaque`, ...); undefined for ConfigMaps. */
  type?: string;
  /** `dataHash` of the decoded key/value pairs. */
  dataHash: string;
}

// `kubectl apply` stores the whole applied object, data included, in this annotation.
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

function decodeBase64(data: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof data !== 'object' || data === null) return out;
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (typeof value === 'string') out[key] = Buffer.from(value, 'base64').toString('utf8');
  }
  return out;
}

function plainStrings(data: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof data !== 'object' || data === null) return out;
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

// Built by destructuring rather than `delete`: a deleted property turns a V8 object into a slow
// dictionary, several times larger, and the cache holds one per Secret.
function slimMetadata(metadata: ObjectMeta | undefined): ObjectMeta {
  const {
    annotations,
    managedFields: _managedFields,
    ...rest
  } = (metadata ?? {}) as ObjectMeta & {
    managedFields?: unknown;
  };
  if (!annotations) return rest;
  const { [lastApplied]: _dropped, ...kept } = annotations;
  return { ...rest, annotations: kept };
}

/** A Secret's `data`, decoded to UTF-8. */
export function decodeSecretData(obj: KubeObject): Record<string, string> {
  return decodeBase64((obj as KubeObject & { data?: unknown }).data);
}

/** Informer transform for Secrets: metadata, type and `dataHash`, no values. */
export function slimSecret(obj: KubeObject, decoded = decodeSecretData(obj)): PayloadMeta {
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: slimMetadata(obj.metadata),
    type: (obj as KubeObject & { type?: string }).type,
    dataHash: dataHash(decoded),
  };
}

/** Informer transform for ConfigMaps: metadata and `dataHash` over data and binaryData. */
export function slimConfigMap(obj: KubeObject): PayloadMeta {
  const raw = obj as KubeObject & { data?: unknown; binaryData?: unknown };
  const binary = Object.entries(plainStrings(raw.binaryData)).map(([k, v]) => [`binary:${k}`, v] as const);
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: slimMetadata(obj.metadata),
    dataHash: dataHash({ ...plainStrings(raw.data), ...Object.fromEntries(binary) }),
  };
}

/** Informer transform for Namespaces: name and labels are all the operator reads. */
export function slimNamespace(obj: KubeObject): KubeObject {
  const { name, uid, resourceVersion, labels, deletionTimestamp } = obj.metadata ?? {};
  return { metadata: { name, uid, resourceVersion, labels, deletionTimestamp } };
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * Passes updates of a cached Secret/ConfigMap that matter: data or type changed, or labels,
 * annotations, owners or deletion changed.
 */
export const payloadChanged: UpdatePredicate<KubeObject> = (obj, old) => {
  const a = obj as PayloadMeta;
  const b = old as PayloadMeta;
  if (a.dataHash !== b.dataHash || a.type !== b.type) return true;
  const ma = a.metadata ?? {};
  const mb = b.metadata ?? {};
  return (
    !same(ma.labels, mb.labels) ||
    !same(ma.annotations, mb.annotations) ||
    !same(ma.ownerReferences, mb.ownerReferences) ||
    ma.deletionTimestamp !== mb.deletionTimestamp
  );
};

/**
 * GETs one object as plain JSON; undefined when it does not exist. `resourceVersion`, when given,
 * asks for a state not older than it (see `versionedGet`).
 */
export type ObjectGet = (
  path: string,
  resourceVersion: string | undefined,
) => Promise<Record<string, unknown> | undefined>;

/** The resourceVersion the operator's cache last saw of an object, if it holds it. */
export type CachedVersion = (namespace: string, name: string) => string | undefined;

const readTimeoutMs = 30_000;

/**
 * An `ObjectGet` over the kubeconfig's cluster. A GET naming a resourceVersion is answered from
 * kube-apiserver's watch cache (semantics "not older than"): no quorum read from etcd, and never a
 * state older than the one that triggered the reconcile. Without one it is a quorum read.
 */
export function versionedGet(kubeConfig: KubeConfig): ObjectGet {
  return async (path, resourceVersion) => {
    try {
      const signal = AbortSignal.timeout(readTimeoutMs);
      const answer = await kubeRequest(kubeConfig, {
        method: 'GET',
        path,
        query: { resourceVersion },
        signal,
      });
      return answer as Record<string, unknown>;
    } catch (error) {
      if (kubernetesStatus(error) === 404) return undefined;
      throw error;
    }
  };
}

const path = (namespace: string, plural: string, name: string) =>
  `/api/v1/namespaces/${encodeURIComponent(namespace)}/${plural}/${encodeURIComponent(name)}`;

/**
 * Secret values: from `held` (see `secret-values.ts`) when it holds them at the version the cache
 * holds, otherwise by GET, not older than the cached version when the cache holds the Secret
 * (a Secret the cache has not seen is looked up with a quorum read, so "missing" is never a watch
 * that lags behind). The answer of a GET is handed to `held`, which keeps it if it is wanted.
 */
export function apiSecretSource(
  get: ObjectGet,
  cachedVersion: CachedVersion,
  held?: SecretValueCache,
): SecretSource {
  return {
    async read(namespace, name) {
      const version = cachedVersion(namespace, name);
      const cached = held?.get(namespace, name, version);
      if (cached) return cached;
      const secret = await get(path(namespace, 'secrets', name), version);
      if (!secret) return undefined;
      const values = decodeBase64(secret.data);
      held?.keep(secret, values);
      return values;
    },
  };
}

/** ConfigMap values by GET as for Secrets; binaryData keys are decoded to UTF-8 as well. */
export function apiConfigMapSource(get: ObjectGet, cachedVersion: CachedVersion): ConfigMapSource {
  return {
    async read(namespace, name) {
      const map = await get(path(namespace, 'configmaps', name), cachedVersion(namespace, name));
      if (!map) return undefined;
      return { ...decodeBase64(map.binaryData), ...plainStrings(map.data) };
    },
  };
}
