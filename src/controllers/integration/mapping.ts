/**
 * Integration mapping: the natural key, the settings PATCH (only fields the spec sets, plus
 * `secretPath`, which the service resets to `/` when omitted), the create body, and status.
 */
import type { IntegrationSpec } from '../../api/v1alpha1/index.ts';
import type { CreateIntegrationInput, Integration, UpdateIntegrationInput } from '../../client/index.ts';

/** Status fields this kind adds. */
export interface IntegrationStatusFields {
  readonly [field: string]: unknown;
  integrationAuthId?: string;
  isActive?: boolean;
  isSynced?: boolean;
  syncMessage?: string;
  lastUsed?: string;
  authHash?: string;
  credentialsApplied?: boolean;
}

/** What Coffer knows about the credentials it last sent. */
export interface AuthState {
  readonly authHash?: string;
  readonly credentialsApplied?: boolean;
}

/** The body of `POST /api/v1/integration` (which the service now refuses with 403). */
/** `/a/b/` and `/a/b` are the same folder. */
function normalisePath(path: string | null | undefined): string {
  const trimmed = (path ?? '/').replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/** True when `integration` is the one the spec's natural key names. */
export function matchesNaturalKey(spec: IntegrationSpec, integration: Integration): boolean {
  return (
    integration.integration === spec.integration &&
    integration.environment?.slug === spec.environment &&
    normalisePath(integration.secretPath) === normalisePath(spec.secretPath) &&
    (integration.app ?? undefined) === spec.app
  );
}

const optionalSettings = ['app', 'targetEnvironment', 'region', 'path'] as const;

/** The settings that differ (spec names) and the PATCH body that sets every managed setting. */
export function settingsPlan(
  spec: IntegrationSpec,
  integration: Integration,
): { diff: string[]; body: UpdateIntegrationInput } {
  const diff: string[] = [];
  if (integration.isActive !== spec.isActive) diff.push('isActive');
  if (integration.environment?.slug !== spec.environment) diff.push('environment');
  if (normalisePath(integration.secretPath) !== normalisePath(spec.secretPath)) diff.push('secretPath');
  const body: UpdateIntegrationInput = {
    isActive: spec.isActive,
    environment: spec.environment,
    secretPath: spec.secretPath,
  };
  for (const field of optionalSettings) {
    const wanted = spec[field];
    if (wanted === undefined) continue;
    body[field] = wanted;
    if ((integration[field] ?? undefined) !== wanted) diff.push(field);
  }
  return { diff, body };
}

/** The create body, using the auth record `integrationAuthId`. */
export function createRequest(spec: IntegrationSpec, integrationAuthId: string): CreateIntegrationInput {
  const out: CreateIntegrationInput = {
    integrationAuthId,
    isActive: spec.isActive,
    sourceEnvironment: spec.environment,
    secretPath: spec.secretPath,
  };
  for (const field of optionalSettings) {
    const value = spec[field];
    if (value !== undefined) out[field] = value;
  }
  return out;
}

/** Status from the service integration and the credential state. */
export function statusOf(integration: Integration, auth: AuthState): IntegrationStatusFields {
  const out: IntegrationStatusFields = {
    integrationAuthId: integration.integrationAuthId,
    isActive: integration.isActive,
  };
  if (typeof integration.isSynced === 'boolean') out.isSynced = integration.isSynced;
  if (integration.syncMessage) out.syncMessage = integration.syncMessage.slice(0, 4096);
  const lastUsed = Date.parse(integration.lastUsed ?? '');
  if (!Number.isNaN(lastUsed)) out.lastUsed = new Date(lastUsed).toISOString();
  if (auth.authHash !== undefined) out.authHash = auth.authHash;
  if (auth.credentialsApplied !== undefined) out.credentialsApplied = auth.credentialsApplied;
  return out;
}
