/**
 * ProjectRole references: `projectRef` → the project's id. While deleting, the id recorded in
 * status stands in for a Project that is already gone.
 */
import type { ProjectRoleSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject, ResolveContext } from '../../managed/external-client.ts';
import { resolveReference } from '../../managed/references.ts';
import type { OperatorServices } from '../kind-controller.ts';

/** What references resolve to. */
export interface ProjectRoleRefs {
  readonly projectId: string;
  /** The operator's waiting requeue, reused for `RoleInUse`. */
  readonly waitRequeueMs: number;
}

/** Resolves `projectRef` (see the module comment). */
export async function resolveProjectRoleRefs(
  services: OperatorServices,
  obj: ManagedObject<ProjectRoleSpec>,
  context: ResolveContext,
): Promise<ProjectRoleRefs> {
  const recorded = obj.status?.projectId;
  const resolved = await resolveReference({
    reader: services.reader('Project'),
    kind: 'Project',
    from: obj,
    ref: obj.spec.projectRef,
    context,
    ...(typeof recorded === 'string' ? { fallbackId: recorded } : {}),
  });
  return { projectId: resolved.externalId, waitRequeueMs: context.waitRequeueMs };
}
