/**
 * Response shapes of projects (workspaces) and environments.
 */
import type { DevApp } from '../app.ts';
import type { EnvironmentRecord, ProjectRecord } from '../state/types.ts';
import { environmentsOf } from './common.ts';

/** The project with `_id` and its environments `[{name, slug, id}]`. */
export function projectShape(app: DevApp, p: ProjectRecord): Record<string, unknown> {
  return {
    id: p.id,
    _id: p.id,
    name: p.name,
    description: p.description,
    type: p.type,
    defaultProduct: p.defaultProduct,
    slug: p.slug,
    autoCapitalization: p.autoCapitalization,
    orgId: p.orgId,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    version: p.version,
    upgradeStatus: p.upgradeStatus,
    pitVersionLimit: p.pitVersionLimit,
    kmsCertificateKeyId: p.kmsCertificateKeyId,
    auditLogsRetentionDays: p.auditLogsRetentionDays,
    hasDeleteProtection: p.hasDeleteProtection,
    secretSharing: p.secretSharing,
    showSnapshotsLegacy: p.showSnapshotsLegacy,
    secretDetectionIgnoreValues: p.secretDetectionIgnoreValues,
    environments: environmentsOf(app, p.id).map((e) => ({ name: e.name, slug: e.slug, id: e.id })),
  };
}

/** `{id, name, slug, position, projectId, createdAt, updatedAt}`. */
export function environmentShape(e: EnvironmentRecord): Record<string, unknown> {
  return {
    id: e.id,
    name: e.name,
    slug: e.slug,
    position: e.position,
    projectId: e.projectId,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}
