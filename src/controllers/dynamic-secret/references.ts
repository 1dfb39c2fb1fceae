/**
 * DynamicSecret references: `projectRef` → the project's slug (the dynamic-secret routes address a
 * project by slug). While deleting, the slug recorded in status stands in for a Project that is
 * already gone.
 */
import type { DynamicSecretSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject, ResolveContext } from '../../managed/external-client.ts';
import { REFERENCE_NOT_READY, resolveReference, type ReferencedObject } from '../../managed/references.ts';
import { WaitingError } from '../../runtime/errors.ts';
import type { OperatorServices } from '../kind-controller.ts';

/** What references resolve to. */
export interface DynamicSecretRefs {
  readonly projectSlug: string;
}

/** A Project as read from the cache: the slug is in status (from the service) and in spec. */
type ProjectObject = ReferencedObject & {
  spec?: { slug?: unknown };
  status?: ReferencedObject['status'] & { slug?: unknown };
};

function recordedSlug(obj: ManagedObject<DynamicSecretSpec>): string | undefined {
  const slug = obj.status?.projectSlug;
  return typeof slug === 'string' && slug ? slug : undefined;
}

/** Resolves `projectRef` (see the module comment). */
export async function resolveDynamicSecretRefs(
  services: OperatorServices,
  obj: ManagedObject<DynamicSecretSpec>,
  context: ResolveContext,
): Promise<DynamicSecretRefs> {
  const recorded = recordedSlug(obj);
  const resolved = await resolveReference({
    reader: services.reader<ProjectObject>('Project'),
    kind: 'Project',
    from: obj,
    ref: obj.spec.projectRef,
    context,
    ...(recorded ? { fallbackId: recorded } : {}),
  });
  const slug = resolved.object ? (resolved.object.status?.slug ?? resolved.object.spec?.slug) : recorded;
  if (typeof slug !== 'string' || !slug) {
    throw new WaitingError(
      REFERENCE_NOT_READY,
      `waiting for Project ${obj.spec.projectRef.name} to record its slug`,
      context.waitRequeueMs,
    );
  }
  return { projectSlug: slug };
}
