/**
 * What a test of the chart on the node (src/sandbox/node-install/) reads about the operator's Pods
 * as a user would with kubectl, and about the projected ServiceAccount token the kubelet wrote for
 * them on the host: its hash and its time claims, never the token itself.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CoordinationV1Api,
  CustomObjectsApi,
  type CoreV1Api,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import { findKind, group, version } from '../../src/api/v1alpha1/index.ts';

/** A Helm release: its name and namespace. */
export interface ReleaseRef {
  readonly name: string;
  readonly namespace: string;
}

/** The operator Pods of `release` that are not being deleted. */
export async function operatorPods(core: CoreV1Api, release: ReleaseRef): Promise<V1Pod[]> {
  const pods = await core.listNamespacedPod({
    namespace: release.namespace,
    labelSelector: `app.kubernetes.io/instance=${release.name}`,
  });
  return pods.items.filter((pod) => !pod.metadata?.deletionTimestamp);
}

/** True when the Pod's Ready condition is True. */
export function podReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
}

/** The holder and duration of the Lease `namespace/name` (an empty holder when released). */
export async function leaseOf(
  kc: KubeConfig,
  where: ReleaseRef,
): Promise<{ holder: string; durationSeconds: number }> {
  const lease = await kc.makeApiClient(CoordinationV1Api).readNamespacedLease(where);
  return { holder: lease.spec?.holderIdentity ?? '', durationSeconds: lease.spec?.leaseDurationSeconds ?? 0 };
}

/**
 * The file the kubelet (root dir `<nodeDir>/kubelet`) projects for the volume `volume` of `pod`:
 * `pods/<uid>/volumes/kubernetes.io~projected/<volume>/<path>` (a symlink into the current `..data`).
 */
export function projectedFileOnHost(nodeDir: string, pod: V1Pod, volume: string, path: string): string {
  const uid = pod.metadata?.uid ?? '';
  return join(nodeDir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~projected', volume, path);
}

/** What a test may know about a token file: the sha256 of its content and its `jti`/`iat`/`exp`/`aud` claims. */
export interface TokenFacts {
  readonly sha256: string;
  /** The `jti` claim: the API server reports it as the credential id (`JTI=<jti>`) of a TokenReview. */
  readonly id: string;
  /** Seconds since the epoch. */
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly audiences: readonly string[];
}

/** Reads the token file at `file` and returns its {@link TokenFacts} (the token is not kept). */
export function tokenFacts(file: string): TokenFacts {
  const token = readFileSync(file, 'utf8').trim();
  const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    jti?: string;
    iat?: number;
    exp?: number;
    aud?: string | string[];
  };
  const aud = claims.aud ?? [];
  return {
    sha256: createHash('sha256').update(token).digest('hex'),
    id: claims.jti ?? '',
    issuedAt: claims.iat ?? 0,
    expiresAt: claims.exp ?? 0,
    audiences: typeof aud === 'string' ? [aud] : aud,
  };
}

/** A coffer.dev object as the tests read it. */
export interface CofferObject {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  status?: {
    id?: string;
    conditions?: { type: string; status: string; reason?: string; observedGeneration?: number }[];
  };
}

/** Reads the coffer.dev object `kind` `namespace/name`. */
export async function readCoffer(
  kc: KubeConfig,
  kind: string,
  where: { namespace: string; name: string },
): Promise<CofferObject> {
  const plural = findKind(kind)?.plural ?? '';
  return (await kc
    .makeApiClient(CustomObjectsApi)
    .getNamespacedCustomObject({ group, version, plural, ...where })) as CofferObject;
}

/** True when the object's `type` condition is True for its current generation. */
export function conditionTrue(obj: CofferObject, type: 'Ready' | 'Synced'): boolean {
  const condition = obj.status?.conditions?.find((c) => c.type === type);
  return condition?.status === 'True' && condition.observedGeneration === obj.metadata.generation;
}
