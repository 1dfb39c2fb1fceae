/**
 * Identity spec ↔ service identity: the create request, the settings that drift, the status
 * and the output Secret. Pure functions.
 */
import type { IdentitySpec, IdentityStatus } from '../../api/v1alpha1/index.ts';
import type { CreateIdentityInput, IdentityDetails, UpdateIdentityInput } from '../../client/index.ts';
import type { SecretOutputs } from '../../managed/external-client.ts';
import type { RecordedMembership } from './memberships.ts';

/** The adapter's part of Identity status. */
export type IdentityStatusFields = Pick<IdentityStatus, 'organizationId' | 'authMethods' | 'memberships'>;

type Metadata = readonly { readonly key: string; readonly value: string }[];

/** `POST /api/v1/identities` body. */
export function createRequest(spec: IdentitySpec, organizationId: string): CreateIdentityInput {
  return {
    name: spec.name,
    organizationId,
    role: spec.role,
    hasDeleteProtection: spec.hasDeleteProtection,
    ...(spec.metadata ? { metadata: spec.metadata.map(({ key, value }) => ({ key, value })) } : {}),
  };
}

/** Metadata as a comparable string: order does not matter, the service trims values. */
function metadataKey(metadata: Metadata): string {
  return JSON.stringify(
    metadata
      .map(({ key, value }) => [key.trim(), value.trim()])
      .sort((a, b) => (a.join('\0') < b.join('\0') ? -1 : 1)),
  );
}

/**
 * The PATCH body with the settings that differ (`{}` when none). Unset `metadata` leaves the
 * service's metadata alone; a listed one replaces it.
 */
export function updateRequest(spec: IdentitySpec, identity: IdentityDetails): UpdateIdentityInput {
  const input: UpdateIdentityInput = {};
  // The service trims names: compare trimmed so a padded name is no endless drift.
  if (identity.name !== spec.name.trim()) input.name = spec.name;
  if (identity.role !== spec.role) input.role = spec.role;
  if (identity.hasDeleteProtection !== spec.hasDeleteProtection)
    input.hasDeleteProtection = spec.hasDeleteProtection;
  if (spec.metadata && metadataKey(spec.metadata) !== metadataKey(identity.metadata))
    input.metadata = spec.metadata.map(({ key, value }) => ({ key, value }));
  return input;
}

/** The output Secret (identity id and organization id), when `outputSecretName` is set. */
export function outputSecret(
  spec: IdentitySpec,
  identityId: string,
  organizationId: string | undefined,
): SecretOutputs | undefined {
  if (!spec.outputSecretName) return undefined;
  return [
    {
      name: spec.outputSecretName,
      data: { identityId, ...(organizationId ? { organizationId } : {}) },
    },
  ];
}

/**
 * The status of `identity` with `memberships` recorded; the organization is the identity's own,
 * else `organizationId` (the connection's), else left out.
 */
export function statusOf(
  identity: { readonly orgId?: string | undefined; readonly authMethods: string[] },
  organizationId: string | undefined,
  memberships: RecordedMembership[],
): IdentityStatusFields {
  const organization = identity.orgId ?? organizationId;
  return {
    ...(organization ? { organizationId: organization } : {}),
    authMethods: identity.authMethods,
    memberships,
  };
}
