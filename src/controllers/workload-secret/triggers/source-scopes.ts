/**
 * The event scopes of a WorkloadSecret's sources: the project as the source names it (a Project
 * resource's id read from the cache, an id, or a slug), the environment, folder and recursion.
 * Resolving reads no service: a Project resource must be Ready (else the delivery waits anyway).
 */
import type { WorkloadSecretSpec } from '../../../api/v1alpha1/index.ts';
import type { ManagedObject } from '../../../managed/external-client.ts';
import { projectAddress, type SourceContext, type SourceRead } from '../sources.ts';
import type { SourceScope } from './index.ts';

/** One scope per source, in spec order. */
export async function sourceScopes(
  obj: ManagedObject<WorkloadSecretSpec>,
  ctx: SourceContext,
): Promise<SourceScope[]> {
  return Promise.all(
    obj.spec.sources.map(async (source) => {
      const address = await projectAddress(obj, source, ctx);
      const project =
        'workspaceId' in address ? { projectId: address.workspaceId } : { projectSlug: address.projectSlug };
      return {
        ...project,
        environment: source.environment,
        secretPath: source.secretPath,
        recursive: source.recursive,
      };
    }),
  );
}

/** The project id a source read shows (the id of the project its secrets belong to). */
export function projectIdOfRead(read: SourceRead): string | undefined {
  return read.report.count > 0 ? read.report.project : undefined;
}
