/**
 * CertificateAuthority references: `projectRef` → the project's id and slug (the deprecated CA
 * create endpoint addresses projects by slug). Nothing is resolved while deleting: a CA is
 * deleted by its own id.
 */
import type { CertificateAuthoritySpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject, ResolveContext } from '../../managed/external-client.ts';
import { REFERENCE_NOT_READY, resolveReference, type ReferencedObject } from '../../managed/references.ts';
import { WaitingError } from '../../runtime/errors.ts';
import type { OperatorServices } from '../kind-controller.ts';

/** What references resolve to (empty while deleting). */
export interface CaRefs {
  readonly projectId?: string;
  readonly projectSlug?: string;
}

/** A Project as read from the cache: the slug is in status (from the service) and in spec. */
type ProjectObject = ReferencedObject & {
  spec?: { slug?: unknown };
  status?: ReferencedObject['status'] & { slug?: unknown };
};

/** Resolves `projectRef`, waiting while the Project is not Ready. */
export async function resolveProject(
  services: OperatorServices,
  obj: ManagedObject<CertificateAuthoritySpec>,
  context: ResolveContext,
): Promise<CaRefs> {
  if (context.deleting) return {};
  const resolved = await resolveReference({
    reader: services.reader<ProjectObject>('Project'),
    kind: 'Project',
    from: obj,
    ref: obj.spec.projectRef,
    context,
  });
  const slug = resolved.object?.status?.slug ?? resolved.object?.spec?.slug;
  if (typeof slug !== 'string' || slug === '') {
    throw new WaitingError(
      REFERENCE_NOT_READY,
      `waiting for Project ${obj.spec.projectRef.name}: it reports no slug yet`,
      context.waitRequeueMs,
    );
  }
  return { projectId: resolved.externalId, projectSlug: slug };
}

/** The resolved project, or an error when references were not resolved (only while deleting). */
export function projectOf(refs: CaRefs): { projectId: string; projectSlug: string } {
  if (refs.projectId === undefined || refs.projectSlug === undefined)
    throw new Error('cannot address the project: its reference was not resolved');
  return { projectId: refs.projectId, projectSlug: refs.projectSlug };
}
