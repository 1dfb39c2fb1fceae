/**
 * Response shape of an identity's project membership, with its roles (custom role details and
 * temporary windows included).
 */
import type { DevApp } from '../app.ts';
import type { ProjectMembershipRecord } from '../state/types.ts';
import { authMethodsOf } from './identity-shapes.ts';

/** `{id, identityId, projectId, roles[], identity{…}, project{…}, createdAt, updatedAt}`. */
export function membershipShape(app: DevApp, m: ProjectMembershipRecord): Record<string, unknown> {
  const identity = app.state.identities[m.identityId];
  const project = app.state.projects[m.projectId];
  return {
    id: m.id,
    identityId: m.identityId,
    projectId: m.projectId,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
    roles: m.roles.map((r) => {
      const custom = r.customRoleId ? app.state.roles[r.customRoleId] : undefined;
      return {
        id: r.id,
        role: r.role,
        customRoleId: r.customRoleId,
        customRoleName: custom?.name ?? null,
        customRoleSlug: custom?.slug ?? null,
        isTemporary: r.isTemporary,
        temporaryMode: r.temporaryMode,
        temporaryRange: r.temporaryRange,
        temporaryAccessStartTime: r.temporaryAccessStartTime,
        temporaryAccessEndTime: r.temporaryAccessEndTime,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
      };
    }),
    identity: { id: m.identityId, name: identity?.name ?? '', authMethods: authMethodsOf(app, m.identityId) },
    project: {
      id: m.projectId,
      name: project?.name ?? '',
      slug: project?.slug ?? '',
      type: project?.type ?? 'secret-manager',
    },
  };
}
