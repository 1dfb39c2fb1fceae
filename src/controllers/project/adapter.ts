/**
 * Project adapter: a service project (workspace) and its environments.
 *
 * - observe: `GET /api/v1/workspace/{id}`, or by slug when no id is recorded (adoption);
 * - create: `POST /api/v2/workspace` with the template (by name, or a ProjectTemplate's name),
 *   then the settings create does not take and the listed environments;
 * - update: the differing settings by PATCH, environments created / renamed / moved / pruned;
 * - delete: `DELETE /api/v1/workspace/{id}` (the service refuses while deletion protection is on,
 *   which the reconciler reports as `DeletionBlocked`).
 */
import type { ProjectSpec } from '../../api/v1alpha1/index.ts';
import { isNotFound, type Project, type ServiceClient } from '../../client/index.ts';
import type {
  ExternalClient,
  ManagedAdapter,
  ManagedObject,
  Observation,
  ResolveContext,
} from '../../managed/external-client.ts';
import { naturalKeyMatch } from '../../managed/external-client.ts';
import { resolveReference, type ReferencedObject } from '../../managed/references.ts';
import { isObserveOnly } from '../../managed/spec.ts';
import { ANNOTATION_EXTERNAL_ID, getAnnotation } from '../../runtime/object-meta.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { convergeProject } from './converge.ts';
import { findProjectBySlug } from './lookup.ts';
import {
  createRequest,
  describeDrift,
  environmentPlan,
  observedEnvironments,
  statusOf,
  updateRequest,
  type ProjectStatusFields,
} from './mapping.ts';

/** What references resolve to: the service template name to create from, if any. */
export interface ProjectRefs {
  readonly template?: string;
}

/** A ProjectTemplate as read from the cache: its `spec.name` is the service template name. */
type TemplateObject = ReferencedObject & { spec?: { name?: unknown } };

/** Requeue soon after a create whose follow-up steps did not all succeed. */
const completeCreateAfterMs = 5_000;

async function getById(client: ServiceClient, id: string, signal: AbortSignal): Promise<Project | undefined> {
  try {
    return await client.projects.get(id, { signal });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

function observation(spec: ProjectSpec, project: Project): Observation<ProjectStatusFields> {
  const diff = describeDrift(
    updateRequest(spec, project),
    environmentPlan(spec, observedEnvironments(project)),
  );
  return {
    exists: true,
    upToDate: diff === undefined,
    externalId: project.id,
    status: statusOf(project),
    ...(diff ? { diff } : {}),
  };
}

/** True when every listed environment is in the recorded status with its name. */
function environmentsRecorded(spec: ProjectSpec, status: ProjectStatusFields | undefined): boolean {
  const recorded = new Map((status?.environments ?? []).map((env) => [env.slug, env.name]));
  return (spec.environments ?? []).every((env) => recorded.get(env.slug) === env.name.trim());
}

function projectClient(client: ServiceClient): ExternalClient<ProjectSpec, ProjectRefs, ProjectStatusFields> {
  return {
    async observe(obj, ctx) {
      const project = ctx.externalId
        ? await getById(client, ctx.externalId, ctx.signal)
        : await findProjectBySlug(client, obj.spec.slug, ctx.signal);
      return project ? observation(obj.spec, project) : { exists: false };
    },
    async create(obj, ctx) {
      const body = createRequest(obj.spec, ctx.references.template);
      const created = await client.projects.create(body, { signal: ctx.signal });
      let project = created;
      try {
        project = await convergeProject(client, obj.spec, created, ctx.signal);
      } catch (error) {
        // The project exists: report its id now; the next reconcile completes the rest.
        ctx.log.warn({ err: error, externalId: created.id }, 'cannot complete the new project yet');
      }
      return { externalId: created.id, status: statusOf(project) };
    },
    async update(obj, ctx) {
      const project = await client.projects.get(ctx.externalId, { signal: ctx.signal });
      return { status: statusOf(await convergeProject(client, obj.spec, project, ctx.signal)) };
    },
    async delete(_obj, ctx) {
      await client.projects.delete(ctx.externalId, { signal: ctx.signal });
    },
    async findByNaturalKey(obj, ctx) {
      const project = await findProjectBySlug(client, obj.spec.slug, ctx.signal);
      return project ? [naturalKeyMatch(project)] : [];
    },
    requeueAfterMs(obj, status) {
      if (isObserveOnly(obj.spec) || environmentsRecorded(obj.spec, status)) return undefined;
      return completeCreateAfterMs;
    },
  };
}

/** The template to create from: `spec.template`, or the name of the referenced ProjectTemplate. */
async function resolveTemplate(
  services: OperatorServices,
  obj: ManagedObject<ProjectSpec>,
  context: ResolveContext,
): Promise<ProjectRefs> {
  if (obj.spec.template) return { template: obj.spec.template };
  const ref = obj.spec.templateRef;
  // The template only matters at creation: an existing project does not wait for it.
  if (!ref || context.deleting || getAnnotation(obj, ANNOTATION_EXTERNAL_ID)) return {};
  const resolved = await resolveReference({
    reader: services.reader<TemplateObject>('ProjectTemplate'),
    kind: 'ProjectTemplate',
    from: obj,
    ref,
    clusterScoped: true,
    context,
  });
  const name = resolved.object?.spec?.name;
  return typeof name === 'string' ? { template: name } : {};
}

/** The Project adapter on the operator's services. */
export function projectAdapter(
  services: OperatorServices,
): ManagedAdapter<ProjectSpec, ProjectRefs, ProjectStatusFields> {
  return {
    resolveReferences: (obj, context) => resolveTemplate(services, obj, context),
    async connect(obj) {
      const connection = await services.connectionFor(obj);
      return projectClient(connection.client);
    },
  };
}
