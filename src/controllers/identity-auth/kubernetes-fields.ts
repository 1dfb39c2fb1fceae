/**
 * Kubernetes-auth mapping of IdentityAuth: the request body (the spec's allowed namespaces, names
 * and audience, plus the host, CA and reviewer token resolved from the cluster) and the fields
 * where the service's configuration differs. The reviewer token is compared by its hash in status
 * (`drift.ts`): the devserver never returns it and the operator does not read it back.
 */
import type { IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import type { KubernetesAuth } from '../../client/index.ts';
import type { ClusterMaterial } from './cluster-material.ts';
import { joinList, sameList } from './lists.ts';
import { commonBody } from './method-fields.ts';

function blocks(spec: IdentityAuthSpec, material: ClusterMaterial) {
  if (!spec.kubernetes) throw new Error('cannot map kubernetes auth: spec.kubernetes is missing');
  if (!material.kubernetes) throw new Error('cannot map kubernetes auth: the cluster material was not read');
  return { k: spec.kubernetes, r: material.kubernetes };
}

function fields(spec: IdentityAuthSpec, material: ClusterMaterial) {
  const { k, r } = blocks(spec, material);
  return {
    ...commonBody(spec),
    kubernetesHost: r.kubernetesHost,
    caCert: r.caCert,
    allowedNamespaces: joinList(k.allowedNamespaces),
    allowedNames: joinList(k.allowedNames),
    allowedAudience: k.allowedAudience ?? '',
  };
}

/** The attach body; without a reviewer token the field is left out (the caller's token reviews). */
export function kubernetesAttachBody(spec: IdentityAuthSpec, material: ClusterMaterial) {
  const token = material.kubernetes?.tokenReviewerJwt;
  return { ...fields(spec, material), ...(token ? { tokenReviewerJwt: token } : {}) };
}

/** The PATCH body: the full state; `tokenReviewerJwt: null` removes a stored reviewer token. */
export function kubernetesUpdateBody(spec: IdentityAuthSpec, material: ClusterMaterial) {
  return { ...fields(spec, material), tokenReviewerJwt: material.kubernetes?.tokenReviewerJwt ?? null };
}

const text = (value: string | null | undefined): string => (value ?? '').trim();
const host = (value: string | null | undefined): string => text(value).replace(/\/+$/, '');

/** Names of the Kubernetes-auth fields that differ from the spec and the cluster material. */
export function kubernetesDrift(
  spec: IdentityAuthSpec,
  material: ClusterMaterial,
  config: KubernetesAuth,
): string[] {
  const { k, r } = blocks(spec, material);
  const same: Record<string, boolean> = {
    kubernetesHost: host(config.kubernetesHost) === host(r.kubernetesHost),
    caCert: text(config.caCert) === text(r.caCert),
    allowedNamespaces: sameList(k.allowedNamespaces, config.allowedNamespaces),
    allowedNames: sameList(k.allowedNames, config.allowedNames),
    allowedAudience: text(config.allowedAudience) === (k.allowedAudience ?? ''),
  };
  return Object.keys(same).filter((name) => !same[name]);
}
