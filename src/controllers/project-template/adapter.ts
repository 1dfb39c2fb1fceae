/**
 * ProjectTemplate adapter: an organization's project template (`/api/v1/project-templates`).
 * Cluster-scoped, so its connection is a ClusterConnection.
 *
 * - observe: `GET …/{id}`; without an id, the list is searched by name (the natural key, unique
 *   in the organization), which also serves adoption and crash recovery;
 * - create, update (PATCH by id), delete by id;
 * - `type` cannot be changed in the service: a template found with another type is reported as
 *   `Synced=False` reason `TypeMismatch` (no update loop) until the spec or the template changes.
 */
import type { ProjectTemplateSpec } from '../../api/v1alpha1/index.ts';
import { isNotFound, type ProjectTemplate, type ServiceClient } from '../../client/index.ts';
import type { ExternalClient, ManagedAdapter, Observation } from '../../managed/external-client.ts';
import { naturalKeyMatch } from '../../managed/external-client.ts';
import { TerminalError } from '../../runtime/errors.ts';
import type { OperatorServices } from '../kind-controller.ts';
import {
  createRequest,
  driftedFields,
  statusOf,
  updateRequest,
  type ProjectTemplateStatusFields,
} from './mapping.ts';
import { projectTemplateReasons } from './reasons.ts';

/** Condition reason when the service template's type differs from the spec's. */
export const TYPE_MISMATCH = projectTemplateReasons.names.TypeMismatch;

type Status = ProjectTemplateStatusFields;

async function getById(
  client: ServiceClient,
  id: string,
  signal: AbortSignal,
): Promise<ProjectTemplate | undefined> {
  try {
    return await client.projectTemplates.get(id, { signal });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function findByName(
  client: ServiceClient,
  name: string,
  signal: AbortSignal,
): Promise<ProjectTemplate[]> {
  const all = await client.projectTemplates.list(undefined, { signal });
  return all.filter((template) => template.name === name);
}

function observation(spec: ProjectTemplateSpec, template: ProjectTemplate): Observation<Status> {
  const drifted = driftedFields(spec, template);
  return {
    exists: true,
    upToDate: drifted.length === 0,
    externalId: template.id,
    status: statusOf(template),
    ...(drifted.length > 0 ? { diff: drifted.join(', ') } : {}),
  };
}

function templateClient(client: ServiceClient): ExternalClient<ProjectTemplateSpec, undefined, Status> {
  return {
    async observe(obj, ctx) {
      const template = ctx.externalId
        ? await getById(client, ctx.externalId, ctx.signal)
        : (await findByName(client, obj.spec.name, ctx.signal))[0];
      return template ? observation(obj.spec, template) : { exists: false };
    },
    async create(obj, ctx) {
      const template = await client.projectTemplates.create(createRequest(obj.spec), { signal: ctx.signal });
      return { externalId: template.id, status: statusOf(template) };
    },
    async update(obj, ctx) {
      const current = await client.projectTemplates.get(ctx.externalId, { signal: ctx.signal });
      if (current.type !== obj.spec.type) {
        throw new TerminalError(
          TYPE_MISMATCH,
          `cannot update project template ${current.name}: it has type ${current.type} and the service ` +
            `cannot change a template's type to ${obj.spec.type}; delete it or use a ProjectTemplate of type ` +
            current.type,
        );
      }
      const body = updateRequest(obj.spec);
      const template = await client.projectTemplates.update(ctx.externalId, body, { signal: ctx.signal });
      return { status: statusOf(template) };
    },
    async delete(_obj, ctx) {
      await client.projectTemplates.delete(ctx.externalId, { signal: ctx.signal });
    },
    async findByNaturalKey(obj, ctx) {
      return (await findByName(client, obj.spec.name, ctx.signal)).map(naturalKeyMatch);
    },
  };
}

/** The ProjectTemplate adapter on the operator's services (no references besides the connection). */
export function projectTemplateAdapter(
  services: OperatorServices,
): ManagedAdapter<ProjectTemplateSpec, undefined, Status> {
  return {
    async connect(obj) {
      const connection = await services.connectionFor(obj);
      return templateClient(connection.client);
    },
  };
}
