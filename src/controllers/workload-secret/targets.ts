/**
 * Writing the targets (see `target-objects.ts` for ownership and the desired objects): nothing is
 * written when the target is up to date; a missing one is created; ours is replaced whole (a type
 * change or an immutable object: deleted and created); anything else is a `TargetConflict` and
 * left untouched. A 409 (changed concurrently) is a `ConflictError`: a silent requeue.
 */
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { KubeCoreApi } from '../../runtime/kube-clients.ts';
import { ConflictError, kubernetesStatus, TerminalError } from '../../runtime/errors.ts';
import type { KubeObject } from '../../runtime/object-meta.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';
import type { CachedPayload } from '../../managed/direct/kind.ts';
import { dataHash } from '../../runtime/secret-writer.ts';
import {
  decodedData,
  desiredTarget,
  isUpToDate,
  needsReplacement,
  ownershipOf,
  type TargetKind,
  type TargetObject,
  type TargetSpec,
} from './target-objects.ts';
import { workloadSecretReasons } from './reasons.ts';

export type TargetWriteResult = 'created' | 'updated' | 'unchanged';

/** Read, create, replace and delete of one target kind. */
interface TargetApi {
  read(namespace: string, name: string): Promise<TargetObject | undefined>;
  create(namespace: string, body: TargetObject): Promise<unknown>;
  replace(namespace: string, name: string, body: TargetObject): Promise<unknown>;
  delete(namespace: string, name: string): Promise<unknown>;
}

async function unlessMissing<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (kubernetesStatus(error) === 404) return undefined;
    throw error;
  }
}

/** The core/v1 calls targets need: the operator's core calls (client-node's signatures). */
export type TargetCoreApi = KubeCoreApi;

/** The core/v1 calls behind each target kind. */
export function targetApis(core: TargetCoreApi): Readonly<Record<TargetKind, TargetApi>> {
  return {
    Secret: {
      read: (namespace, name) =>
        unlessMissing(core.readNamespacedSecret({ namespace, name }) as Promise<TargetObject>),
      create: (namespace, body) => core.createNamespacedSecret({ namespace, body: body as V1Secret }),
      replace: (namespace, name, body) =>
        core.replaceNamespacedSecret({ namespace, name, body: body as V1Secret }),
      delete: (namespace, name) => core.deleteNamespacedSecret({ namespace, name }),
    },
    ConfigMap: {
      read: (namespace, name) =>
        unlessMissing(core.readNamespacedConfigMap({ namespace, name }) as Promise<TargetObject>),
      create: (namespace, body) => core.createNamespacedConfigMap({ namespace, body: body as V1ConfigMap }),
      replace: (namespace, name, body) =>
        core.replaceNamespacedConfigMap({ namespace, name, body: body as V1ConfigMap }),
      delete: (namespace, name) => core.deleteNamespacedConfigMap({ namespace, name }),
    },
  };
}

function conflict(spec: TargetSpec, why: string): TerminalError {
  const adopt = spec.adoptExisting ? '' : ', or set spec.target.adoptExisting: true to take it over';
  return new TerminalError(
    workloadSecretReasons.names.TargetConflict,
    `${spec.kind} ${spec.namespace}/${spec.name} exists and is not this WorkloadSecret's (${why}); ` +
      `it is left untouched: delete or rename it${adopt}`,
  );
}

async function writeTarget(api: TargetApi, spec: TargetSpec, owner: KubeObject): Promise<TargetWriteResult> {
  const existing = await api.read(spec.namespace, spec.name);
  if (!existing) {
    await api.create(spec.namespace, desiredTarget(spec, owner));
    return 'created';
  }
  const ownership = ownershipOf(existing, owner, spec.adoptExisting);
  if (typeof ownership === 'object') throw conflict(spec, ownership.foreign);
  const actual = dataHash(decodedData(spec.kind, existing));
  if (ownership === 'ours' && isUpToDate(existing, actual, spec, owner)) return 'unchanged';
  if (needsReplacement(existing, spec)) {
    await api.delete(spec.namespace, spec.name);
    // A new object: the old one's identity (uid, resourceVersion) does not carry over.
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _at, ...metadata } = existing.metadata ?? {};
    await api.create(spec.namespace, desiredTarget(spec, owner, { metadata }));
    return 'updated';
  }
  await api.replace(spec.namespace, spec.name, desiredTarget(spec, owner, existing));
  return 'updated';
}

/** The informer cache's view of a target (metadata and data hash, no values), if any. */
export type TargetCache = (kind: TargetKind, namespace: string, name: string) => CachedPayload | undefined;

/** True when the cache shows the target ours and up to date: no request at all. */
function cachedUpToDate(cache: TargetCache | undefined, spec: TargetSpec, owner: KubeObject): boolean {
  const cached = cache?.(spec.kind, spec.namespace, spec.name);
  if (!cached || ownershipOf(cached, owner, false) !== 'ours') return false;
  return isUpToDate(cached, cached.dataHash, spec, owner);
}

/**
 * Writes one target (see the module comment); values never appear in errors. With `cache`, a
 * target the informer cache shows up to date costs no request (a cache behind a change only costs
 * the GET of the slow path).
 */
export async function deliverTarget(
  apis: Readonly<Record<TargetKind, TargetApi>>,
  spec: TargetSpec,
  owner: KubeObject,
  cache?: TargetCache,
): Promise<TargetWriteResult> {
  if (cachedUpToDate(cache, spec, owner)) return 'unchanged';
  try {
    return await writeTarget(apis[spec.kind], spec, owner);
  } catch (error) {
    if (kubernetesStatus(error) === 409)
      throw new ConflictError(
        commonReasons.names.Conflict,
        `cannot write ${spec.kind} ${spec.name}: it changed concurrently`,
        { cause: error },
      );
    throw error;
  }
}
