/**
 * What an IdentityAuth sends that is not in its spec but read from the cluster before each sync:
 *
 * - Kubernetes auth: the API server (`kubernetesHost`, default: the one the operator talks to),
 *   its CA (`caCert`, a ConfigMap key, or the operator's own CA for the default host) and the
 *   reviewer token of `tokenReviewerJwtSecretRef`;
 * - JWT auth with `clusterIssuer`: the cluster's ServiceAccount issuer and its public keys.
 *
 * Read again on every reconcile, so a rotated key, CA or reviewer token reaches the service on the
 * next sync. The reviewer token lives only in memory: status keeps its sha256, nothing logs it.
 */
import { createHash } from 'node:crypto';
import type { IdentityAuthSpec, KubernetesMethod } from '../../api/v1alpha1/index.ts';
import type { ApiServerAccess } from '../../runtime/cluster-identity.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';
import { WaitingError } from '../../runtime/errors.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { identityAuthReasons } from './reasons.ts';

/** The Kubernetes-auth fields resolved from the cluster. */
export interface ResolvedKubernetes {
  readonly kubernetesHost: string;
  /** '' for none. */
  readonly caCert: string;
  /** Undefined: the service reviews each login with the caller's own token. */
  readonly tokenReviewerJwt?: string;
}

/** The cluster's ServiceAccount issuer, for `jwt.clusterIssuer`. */
export interface ResolvedIssuer {
  readonly issuer: string;
  readonly publicKeys: readonly string[];
}

/** Everything resolved from the cluster for one IdentityAuth (empty for other methods). */
export interface ClusterMaterial {
  readonly kubernetes?: ResolvedKubernetes;
  readonly clusterIssuer?: ResolvedIssuer;
}

/** Requeue while a referenced Secret/ConfigMap or the issuer cannot be read yet. */
const materialRequeueMs = 15_000;

/** The reasons of a missing Secret/ConfigMap or key. */
const missingReasons = {
  Secret: { object: commonReasons.names.SecretNotFound, key: commonReasons.names.SecretKeyNotFound },
  ConfigMap: {
    object: identityAuthReasons.names.ConfigMapNotFound,
    key: identityAuthReasons.names.ConfigMapNotFound,
  },
} as const;

async function readKey(
  services: OperatorServices,
  what: 'Secret' | 'ConfigMap',
  namespace: string,
  ref: { name: string; key: string },
): Promise<string> {
  const source = what === 'Secret' ? services.secrets : services.configMaps;
  const data = await source.read(namespace, ref.name);
  if (data === undefined)
    throw new WaitingError(
      missingReasons[what].object,
      `cannot read ${what} ${namespace}/${ref.name}: it does not exist`,
      materialRequeueMs,
    );
  const value = data[ref.key];
  if (value === undefined)
    throw new WaitingError(
      missingReasons[what].key,
      `cannot read key ${ref.key} of ${what} ${namespace}/${ref.name}: no such key`,
      materialRequeueMs,
    );
  return value.trim();
}

function operatorApiServer(services: OperatorServices) {
  try {
    return services.cluster.apiServer();
  } catch (error) {
    throw new WaitingError(
      identityAuthReasons.names.ClusterUnreadable,
      `cannot default kubernetes.kubernetesHost: ${(error as Error).message}; set it explicitly`,
      materialRequeueMs,
      { cause: error },
    );
  }
}

/** The CA of the host: the spec's, its ConfigMap's, or the operator's own for the default host. */
async function caFor(
  services: OperatorServices,
  namespace: string,
  k: KubernetesMethod,
  own: ApiServerAccess | undefined,
): Promise<string> {
  if (k.caCert !== undefined) return k.caCert.trim();
  if (k.caCertConfigMapRef) return readKey(services, 'ConfigMap', namespace, k.caCertConfigMapRef);
  return own?.caCert?.trim() ?? '';
}

async function resolveKubernetes(
  services: OperatorServices,
  namespace: string,
  k: KubernetesMethod,
): Promise<ResolvedKubernetes> {
  const own = k.kubernetesHost === undefined ? operatorApiServer(services) : undefined;
  const caCert = await caFor(services, namespace, k, own);
  const reviewer = k.tokenReviewerJwtSecretRef
    ? await readKey(services, 'Secret', namespace, k.tokenReviewerJwtSecretRef)
    : undefined;
  return {
    kubernetesHost: k.kubernetesHost ?? own?.url ?? '',
    caCert,
    ...(reviewer ? { tokenReviewerJwt: reviewer } : {}),
  };
}

async function resolveIssuer(services: OperatorServices, signal: AbortSignal): Promise<ResolvedIssuer> {
  try {
    return await services.cluster.serviceAccountIssuer(signal);
  } catch (error) {
    throw new WaitingError(
      identityAuthReasons.names.ClusterUnreadable,
      `cannot read the cluster's ServiceAccount issuer for jwt.clusterIssuer: ${(error as Error).message}`,
      materialRequeueMs,
      { cause: error },
    );
  }
}

/** Reads the cluster material `spec` needs (none for methods without any). */
export async function resolveClusterMaterial(
  services: OperatorServices,
  namespace: string,
  spec: IdentityAuthSpec,
  signal: AbortSignal,
): Promise<ClusterMaterial> {
  if (spec.method === 'kubernetes' && spec.kubernetes)
    return { kubernetes: await resolveKubernetes(services, namespace, spec.kubernetes) };
  if (spec.method === 'jwt' && spec.jwt?.clusterIssuer)
    return { clusterIssuer: await resolveIssuer(services, signal) };
  return {};
}

/** sha256 of the reviewer token sent, for status; undefined without one. */
export function reviewerJwtHash(material: ClusterMaterial): string | undefined {
  const token = material.kubernetes?.tokenReviewerJwt;
  return token ? createHash('sha256').update(token).digest('hex') : undefined;
}
