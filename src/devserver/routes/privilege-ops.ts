/**
 * Additional privileges shared by the v1 (slug-addressed) and v2 (id-addressed) routes: the
 * temporary window, creation with the duplicate-slug check, and the response shapes.
 */
import { randomBytes } from 'node:crypto';
import type { DevApp } from '../app.ts';
import { temporaryEndTime } from '../domain/duration.ts';
import { badRequest, notFound } from '../domain/errors.ts';
import { returnedRules } from '../domain/permission-response.ts';
import type { PermissionRule } from '../domain/permission-rules.ts';
import { v1ResponseRules } from '../domain/permission-schema.ts';
import { findMembership } from '../domain/permissions.ts';
import type { PrivilegeRecord, ProjectMembershipRecord, TemporaryFields } from '../state/types.ts';
import { checkTemplates } from './roles.ts';

/** The requested window, as sent by either API version. */
export interface WindowInput {
  isTemporary?: boolean | undefined;
  temporaryMode?: string | undefined;
  temporaryRange?: string | undefined;
  temporaryAccessStartTime?: string | undefined;
}

/**
 * An instant as the service returns it after storing it: ISO-8601 UTC with milliseconds (its
 * database keeps the time, not the request's spelling or sub-millisecond digits).
 */
export function storedInstant(iso: string): string {
  return new Date(iso).toISOString();
}

/**
 * The stored window; 400 "Temporary mode expects start time and range" when incomplete. The start
 * is kept as {@link storedInstant}.
 */
export function windowFields(input: WindowInput): TemporaryFields {
  if (!input.isTemporary) {
    return {
      isTemporary: false,
      temporaryMode: null,
      temporaryRange: null,
      temporaryAccessStartTime: null,
      temporaryAccessEndTime: null,
    };
  }
  if (!input.temporaryRange || !input.temporaryAccessStartTime)
    throw badRequest('Temporary mode expects start time and range');
  return {
    isTemporary: true,
    temporaryMode: input.temporaryMode ?? 'relative',
    temporaryRange: input.temporaryRange,
    temporaryAccessStartTime: storedInstant(input.temporaryAccessStartTime),
    temporaryAccessEndTime: temporaryEndTime(input.temporaryAccessStartTime, input.temporaryRange),
  };
}

/** The membership of an identity in a project, else 404 as the privilege service answers. */
export function requireMembership(
  app: DevApp,
  projectId: string,
  identityId: string,
): ProjectMembershipRecord {
  const m = findMembership(app, projectId, identityId);
  if (!m)
    throw notFound(
      `Project membership for identity with ID '${identityId}' in project with ID '${projectId}' not found`,
    );
  return m;
}

/** Eight random alphanumerics, the slug of a privilege created without one. */
export function generatedSlug(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(8)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** Throws 400 when `slug` is already used by another privilege of the identity in the project. */
export function assertSlugFree(
  app: DevApp,
  p: { projectId: string; identityId: string; slug: string; id?: string },
): void {
  const clash = Object.values(app.state.privileges).some(
    (x) => x.projectId === p.projectId && x.identityId === p.identityId && x.slug === p.slug && x.id !== p.id,
  );
  if (clash) throw badRequest(`Additional privilege with name ${p.slug} exists`);
}

/** Creates a privilege after the membership, slug and template checks. */
export function createPrivilege(
  app: DevApp,
  input: {
    projectId: string;
    identityId: string;
    slug: string;
    permissions: PermissionRule[];
    window: WindowInput;
  },
): PrivilegeRecord {
  const membership = requireMembership(app, input.projectId, input.identityId);
  assertSlugFree(app, input);
  checkTemplates(input.permissions);
  const now = app.iso();
  const record: PrivilegeRecord = {
    id: app.newId(),
    slug: input.slug,
    projectId: input.projectId,
    identityId: input.identityId,
    projectMembershipId: membership.id,
    permissions: input.permissions,
    ...windowFields(input.window),
    createdAt: now,
    updatedAt: now,
  };
  app.state.privileges[record.id] = record;
  app.changed();
  return record;
}

/** Applies a merged update: a permanent result keeps the old window fields, as the service does. */
export function applyPrivilegeUpdate(
  app: DevApp,
  p: PrivilegeRecord,
  update: { slug?: string | undefined; permissions?: PermissionRule[] | undefined; window: WindowInput },
): void {
  if (update.slug !== undefined && update.slug !== p.slug) {
    assertSlugFree(app, { ...p, slug: update.slug });
    p.slug = update.slug;
  }
  if (update.permissions !== undefined) {
    checkTemplates(update.permissions);
    p.permissions = update.permissions;
  }
  if (update.window.isTemporary) Object.assign(p, windowFields(update.window));
  else p.isTemporary = false;
  p.updatedAt = app.iso();
  app.changed();
}

function windowShape(p: PrivilegeRecord): Record<string, unknown> {
  return {
    isTemporary: p.isTemporary,
    temporaryMode: p.temporaryMode,
    temporaryRange: p.temporaryRange,
    temporaryAccessStartTime: p.temporaryAccessStartTime,
    temporaryAccessEndTime: p.temporaryAccessEndTime,
  };
}

/**
 * The v2 shape, with the membership's id as `projectMembershipId` (the spec lists it among the
 * fields); `withPermissions: false` for the v2 list.
 */
export function privilegeShapeV2(p: PrivilegeRecord, withPermissions = true): Record<string, unknown> {
  return {
    id: p.id,
    slug: p.slug,
    projectMembershipId: p.projectMembershipId,
    ...windowShape(p),
    ...(withPermissions ? { permissions: returnedRules(p.permissions) } : {}),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

/** The v1 shape: `projectMembershipId` holds the project id and some subjects are omitted. */
export function privilegeShapeV1(p: PrivilegeRecord): Record<string, unknown> {
  return {
    id: p.id,
    slug: p.slug,
    projectMembershipId: p.projectId,
    ...windowShape(p),
    permissions: returnedRules(v1ResponseRules(p.permissions)),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}
