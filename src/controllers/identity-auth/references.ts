/**
 * IdentityAuth references: `identityRef` → the identity's id, and the material read from the
 * cluster (`cluster-material.ts`). While deleting, the Identity resource may already be gone: the
 * id recorded in status stands in for it; nothing is read from the cluster then (a revoke needs
 * none).
 */
import type { ManagedObject, ResolveContext } from '../../managed/external-client.ts';
import { resolveReference } from '../../managed/references.ts';
import type { IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { resolveClusterMaterial } from './cluster-material.ts';
import { previousOf, type IdentityAuthRefs } from './status.ts';

/** Resolves `identityRef` (see the module comment). */
export async function resolveIdentityAuthRefs(
  services: OperatorServices,
  obj: ManagedObject<IdentityAuthSpec>,
  context: ResolveContext,
): Promise<IdentityAuthRefs> {
  const fallbackId = previousOf(obj)?.identityId;
  const resolved = await resolveReference({
    reader: services.reader('Identity'),
    kind: 'Identity',
    from: obj,
    ref: obj.spec.identityRef,
    context,
    ...(fallbackId ? { fallbackId } : {}),
  });
  const material = context.deleting
    ? {}
    : await resolveClusterMaterial(services, obj.metadata.namespace ?? '', obj.spec, context.signal);
  return { identityId: resolved.externalId, identity: resolved.object, material };
}
