/**
 * Response shapes for identities: the plain identity (create, update, delete) and the
 * org-membership wrapper (get, list, search).
 */
import type { DevApp } from '../app.ts';
import type { IdentityRecord } from '../state/types.ts';

/** Auth method names attached to `identityId`, in attach order. */
export function authMethodsOf(app: DevApp, identityId: string): string[] {
  return Object.values(app.state.authMethods)
    .filter((m) => m.identityId === identityId)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((m) => m.method);
}

/** `{id, name, authMethod, authMethods, hasDeleteProtection, orgId, projectId, metadata, …}`. */
export function identityShape(app: DevApp, identity: IdentityRecord): Record<string, unknown> {
  const methods = authMethodsOf(app, identity.id);
  return {
    id: identity.id,
    name: identity.name,
    authMethod: methods[0] ?? null,
    authMethods: methods,
    hasDeleteProtection: identity.hasDeleteProtection,
    orgId: identity.orgId,
    projectId: null,
    metadata: identity.metadata,
    createdAt: identity.createdAt,
    updatedAt: identity.updatedAt,
  };
}

/** The org-membership wrapper `GET /api/v1/identities/{id}` answers with. */
export function identityMembershipShape(app: DevApp, identity: IdentityRecord): Record<string, unknown> {
  return {
    id: identity.orgMembershipId,
    role: identity.role,
    roleId: null,
    orgId: identity.orgId,
    identityId: identity.id,
    lastLoginAuthMethod: identity.lastLoginAuthMethod ?? null,
    lastLoginTime: identity.lastLoginTime ?? null,
    createdAt: identity.createdAt,
    updatedAt: identity.updatedAt,
    metadata: identity.metadata,
    identity: {
      id: identity.id,
      name: identity.name,
      hasDeleteProtection: identity.hasDeleteProtection,
      orgId: identity.orgId,
      authMethods: authMethodsOf(app, identity.id),
      activeLockoutAuthMethods: [],
    },
  };
}
