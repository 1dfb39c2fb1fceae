/**
 * DynamicSecret spec ↔ service: the provider `{type, inputs}` a spec stands for (with the admin
 * credential read from its Secret), the update request, the status, and drift.
 *
 * Drift compares every input the spec sets with the inputs the service returns (it returns them,
 * credentials included, for the SQL and Kubernetes providers), plus the TTLs and the username
 * template. Strings are compared as the service stores them (trimmed; the SQL host lowercased); an
 * unset optional string equals an empty or missing one. The admin credential is compared only when
 * the service returns it; `diff` names fields, never values.
 */
import type { DynamicSecretSpec } from '../../api/v1alpha1/index.ts';
import type { DynamicSecret } from '../../client/index.ts';

/** Status fields this kind adds. */
export interface DynamicSecretStatusFields extends Record<string, unknown> {
  readonly name: string;
  readonly projectSlug: string;
  readonly provider: string;
}

/** The fields of `inputs` that hold the admin credential. */
const CREDENTIAL_FIELDS = new Set(['password', 'clusterToken']);

type Inputs = Record<string, unknown>;

function sqlInputs(sql: NonNullable<DynamicSecretSpec['provider']['sqlDatabase']>, password: string): Inputs {
  return {
    client: sql.client,
    host: sql.host.trim().toLowerCase(),
    port: sql.port,
    database: sql.database.trim(),
    username: sql.username.trim(),
    password: password.trim(),
    creationStatement: sql.creationStatement.trim(),
    revocationStatement: sql.revocationStatement.trim(),
    renewStatement: sql.renewStatement?.trim() ?? '',
    ca: sql.ca ?? '',
    ...(sql.sslEnabled === undefined ? {} : { sslEnabled: sql.sslEnabled }),
  };
}

function kubernetesInputs(
  k: NonNullable<DynamicSecretSpec['provider']['kubernetes']>,
  token: string,
): Inputs {
  return {
    url: k.url,
    clusterToken: token.trim(),
    ca: k.ca ?? '',
    sslEnabled: k.sslEnabled ?? false,
    authMethod: 'api',
    credentialType: k.credentialType,
    namespace: [k.namespace, ...(k.additionalNamespaces ?? [])].join(','),
    audiences: k.audiences,
    ...(k.credentialType === 'static'
      ? { serviceAccountName: k.serviceAccountName ?? '' }
      : { roleType: k.roleType, role: k.role ?? '' }),
  };
}

/** The provider the spec stands for, with `credential` as its admin password or cluster token. */
export function desiredProvider(
  spec: DynamicSecretSpec,
  credential: string,
): { type: string; inputs: Inputs } {
  const { sqlDatabase, kubernetes } = spec.provider;
  if (sqlDatabase) return { type: 'sql-database', inputs: sqlInputs(sqlDatabase, credential) };
  if (kubernetes) return { type: 'kubernetes', inputs: kubernetesInputs(kubernetes, credential) };
  throw new Error('invalid spec: no provider (the schema requires one)');
}

/** The inputs of a create: empty optional strings left out. */
export function createInputs(inputs: Inputs): Inputs {
  return Object.fromEntries(Object.entries(inputs).filter(([, v]) => v !== ''));
}

function same(desired: unknown, observed: unknown): boolean {
  if (typeof desired === 'string')
    return desired.trim() === (typeof observed === 'string' ? observed.trim() : '');
  return JSON.stringify(desired) === JSON.stringify(observed ?? (Array.isArray(desired) ? [] : undefined));
}

function driftedInputs(desired: Inputs, observed: Inputs | undefined): string[] {
  const out: string[] = [];
  for (const [field, value] of Object.entries(desired)) {
    if (CREDENTIAL_FIELDS.has(field) && typeof observed?.[field] !== 'string') continue;
    if (!same(value, observed?.[field])) out.push(`inputs.${field}`);
  }
  return out;
}

/** Names of the fields where the service object differs from the spec (never values). */
export function driftedFields(spec: DynamicSecretSpec, inputs: Inputs, observed: DynamicSecret): string[] {
  const out = driftedInputs(inputs, observed.inputs);
  if (observed.name !== spec.name) out.push('name');
  if (observed.defaultTTL !== spec.defaultTTL) out.push('defaultTTL');
  if ((observed.maxTTL ?? undefined) !== spec.maxTTL) out.push('maxTTL');
  if ((observed.usernameTemplate ?? undefined) !== spec.usernameTemplate) out.push('usernameTemplate');
  return out;
}

/** The `data` of an update request that makes the service object match the spec. */
export function updateData(spec: DynamicSecretSpec, inputs: Inputs, currentName: string) {
  return {
    inputs,
    defaultTTL: spec.defaultTTL,
    maxTTL: spec.maxTTL ?? null,
    usernameTemplate: spec.usernameTemplate ?? null,
    ...(currentName === spec.name ? {} : { newName: spec.name }),
  };
}

/** Status of an observed or written dynamic secret. */
export function statusOf(ds: DynamicSecret, projectSlug: string): DynamicSecretStatusFields {
  return { name: ds.name, projectSlug, provider: ds.type };
}
