/**
 * ProjectRole adapter: a custom role in a project (`/api/v2/workspace/{projectId}/roles`).
 *
 * - observe: the role-by-slug endpoint (there is no get-by-id). With a recorded id the last
 *   known slug and the spec's slug are tried; a role renamed behind our back is found in the
 *   role list by id. Without an id, the spec's slug finds a role to adopt (the natural key);
 * - create / update (PATCH by id) / delete by id;
 * - a role still assigned to memberships cannot be deleted: the service's 400 becomes
 *   `Synced=False` reason `RoleInUse` with its message, retried after the waiting requeue.
 */
import type { ProjectRoleSpec } from '../../api/v1alpha1/index.ts';
import { isInvalid, type Role, type ServiceClient } from '../../client/index.ts';
import type { ExternalClient, ManagedAdapter, Observation } from '../../managed/external-client.ts';
import { naturalKeyMatch } from '../../managed/external-client.ts';
import { describeError } from '../../managed/service-errors.ts';
import { ANNOTATION_ABANDON } from '../../runtime/object-meta.ts';
import { WaitingError } from '../../runtime/errors.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { findById, findBySlug, recordedSlug } from './lookup.ts';
import {
  createRequest,
  driftedFields,
  statusOf,
  updateRequest,
  type ProjectRoleStatusFields,
} from './mapping.ts';
import { projectRoleReasons } from './reasons.ts';
import { resolveProjectRoleRefs, type ProjectRoleRefs } from './references.ts';

/** Condition reason while the service refuses to delete a role that memberships still use. */
export const ROLE_IN_USE = projectRoleReasons.names.RoleInUse;

type Status = ProjectRoleStatusFields;

function observation(spec: ProjectRoleSpec, role: Role, projectId: string): Observation<Status> {
  const drifted = driftedFields(spec, role);
  return {
    exists: true,
    upToDate: drifted.length === 0,
    externalId: role.id,
    status: statusOf(role, projectId),
    ...(drifted.length > 0 ? { diff: drifted.join(', ') } : {}),
  };
}

function roleClient(client: ServiceClient): ExternalClient<ProjectRoleSpec, ProjectRoleRefs, Status> {
  return {
    async observe(obj, ctx) {
      const { projectId } = ctx.references;
      const role = ctx.externalId
        ? await findById(client, obj, { projectId, id: ctx.externalId, signal: ctx.signal })
        : await findBySlug(client, projectId, obj.spec.slug, ctx.signal);
      return role ? observation(obj.spec, role, projectId) : { exists: false };
    },
    async create(obj, ctx) {
      const { projectId } = ctx.references;
      const role = await client.roles.create(projectId, createRequest(obj.spec), { signal: ctx.signal });
      return { externalId: role.id, status: statusOf(role, projectId) };
    },
    async update(obj, ctx) {
      const { projectId } = ctx.references;
      const body = updateRequest(obj.spec);
      const role = await client.roles.update(projectId, ctx.externalId, body, { signal: ctx.signal });
      return { status: statusOf(role, projectId) };
    },
    async delete(obj, ctx) {
      try {
        await client.roles.delete(ctx.references.projectId, ctx.externalId, { signal: ctx.signal });
      } catch (error) {
        // The service answers 400 only while memberships use the role: wait for them to change.
        if (!isInvalid(error)) throw error;
        throw new WaitingError(
          ROLE_IN_USE,
          `cannot delete role ${recordedSlug(obj) ?? obj.spec.slug}: ${describeError(error)}; remove it from ` +
            `those memberships, or set the annotation ${ANNOTATION_ABANDON}: "true" to leave it in place`,
          ctx.references.waitRequeueMs,
          { cause: error },
        );
      }
    },
    async findByNaturalKey(obj, ctx) {
      const role = await findBySlug(client, ctx.references.projectId, obj.spec.slug, ctx.signal);
      return role ? [naturalKeyMatch(role)] : [];
    },
  };
}

/** The ProjectRole adapter on the operator's services. */
export function projectRoleAdapter(
  services: OperatorServices,
): ManagedAdapter<ProjectRoleSpec, ProjectRoleRefs, Status> {
  return {
    resolveReferences: (obj, context) => resolveProjectRoleRefs(services, obj, context),
    async connect(obj) {
      const connection = await services.connectionFor(obj);
      return roleClient(connection.client);
    },
  };
}
