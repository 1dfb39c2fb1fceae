/**
 * Brings an existing service project in line with the spec: settings by one PATCH, then the
 * environments (removals and creates, then renames and moves computed on the result, so moves
 * see the positions the creates produced).
 */
import type { ProjectSpec } from '../../api/v1alpha1/index.ts';
import { isNotFound, type Project, type ServiceClient } from '../../client/index.ts';
import { environmentPlan, observedEnvironments, updateRequest } from './mapping.ts';

async function reread(client: ServiceClient, id: string, signal: AbortSignal): Promise<Project> {
  return client.projects.get(id, { signal });
}

/** Applies removals and creates; true when anything changed. */
async function addAndRemove(
  client: ServiceClient,
  spec: ProjectSpec,
  project: Project,
  signal: AbortSignal,
): Promise<boolean> {
  const plan = environmentPlan(spec, observedEnvironments(project));
  for (const env of plan.remove) {
    try {
      await client.environments.delete(project.id, env.id, { signal });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  for (const input of plan.create) await client.environments.create(project.id, input, { signal });
  return plan.remove.length + plan.create.length > 0;
}

/** Applies renames and moves; true when anything changed. */
async function renameAndMove(
  client: ServiceClient,
  spec: ProjectSpec,
  project: Project,
  signal: AbortSignal,
): Promise<boolean> {
  const plan = environmentPlan(spec, observedEnvironments(project));
  for (const env of plan.update) await client.environments.update(project.id, env.id, env.input, { signal });
  return plan.update.length > 0;
}

/**
 * Makes `project` match `spec` and returns the project as the service now has it. Each step
 * only runs when something differs, so an up-to-date project costs no request.
 */
export async function convergeProject(
  client: ServiceClient,
  spec: ProjectSpec,
  project: Project,
  signal: AbortSignal,
): Promise<Project> {
  let current = project;
  const settings = updateRequest(spec, current);
  if (Object.keys(settings).length > 0) {
    const updated = await client.projects.update(current.id, settings, { signal });
    // The PATCH answer may omit environments; they did not change.
    current = { ...current, ...updated, environments: updated.environments ?? current.environments };
  }
  if (await addAndRemove(client, spec, current, signal)) current = await reread(client, current.id, signal);
  if (await renameAndMove(client, spec, current, signal)) current = await reread(client, current.id, signal);
  return current;
}
