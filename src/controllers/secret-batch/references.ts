/**
 * SecretBatch references: `projectRef` → the project's id. While deleting, the project id in the
 * recorded external id (`projectId:environment:secretPath`) stands in for a Project that is gone.
 * `scopeOf` turns the resolved id into the folder the resource writes into.
 */
import type { SecretBatchSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject, ResolveContext } from '../../managed/external-client.ts';
import { resolveReference, type ReferencedObject } from '../../managed/references.ts';
import { ANNOTATION_EXTERNAL_ID, getAnnotation } from '../../runtime/object-meta.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { parseExternalId, type BatchScope } from './mapping.ts';

/** What references resolve to: the service project id. */
export interface SecretBatchRefs {
  readonly projectId: string;
}

/** Resolves `projectRef` (see the module comment). */
export async function resolveSecretBatchRefs(
  services: OperatorServices,
  obj: ManagedObject<SecretBatchSpec>,
  context: ResolveContext,
): Promise<SecretBatchRefs> {
  const recorded = parseExternalId(getAnnotation(obj, ANNOTATION_EXTERNAL_ID) ?? '')?.projectId;
  const resolved = await resolveReference({
    reader: services.reader<ReferencedObject>('Project'),
    kind: 'Project',
    from: obj,
    ref: obj.spec.projectRef,
    context,
    ...(recorded ? { fallbackId: recorded } : {}),
  });
  return { projectId: resolved.externalId };
}

/** The folder `obj` writes into, in project `projectId`. */
export function scopeOf(obj: ManagedObject<SecretBatchSpec>, projectId: string): BatchScope {
  return { projectId, environment: obj.spec.environment, secretPath: obj.spec.secretPath };
}
