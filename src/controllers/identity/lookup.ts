/**
 * Finding the identity an Identity manages: by its recorded id, or (adoption and crash recovery)
 * by its trimmed name among the organization's identities. Adoption refuses, terminally, when
 * several identities of the organization have the name. Listing needs the connection's
 * organization id: until the connection reports it, the reconcile waits (`OrganizationUnknown`).
 */
import type { IdentitySpec } from '../../api/v1alpha1/index.ts';
import { type IdentityDetails, unlessNotFound } from '../../client/index.ts';
import type { ExternalContext, ManagedObject } from '../../managed/external-client.ts';
import { TerminalError, WaitingError } from '../../runtime/errors.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../runtime/object-meta.ts';
import type { ResolvedConnection } from '../kind-controller.ts';
import { identityReasons } from './reasons.ts';
import type { IdentityRefs } from './references.ts';

/** The connection's organization id; throws `OrganizationUnknown` (waiting) while it has none. */
export function organizationOf(connection: ResolvedConnection): string {
  if (connection.organizationId) return connection.organizationId;
  throw new WaitingError(
    identityReasons.names.OrganizationUnknown,
    `cannot address identities: ${connection.key} does not report its organization id yet`,
    10_000,
  );
}

/** The organization's identities named as the spec (trimmed, as the service stores names). */
export async function identitiesNamed(
  connection: ResolvedConnection,
  obj: ManagedObject<IdentitySpec>,
  signal: AbortSignal,
): Promise<IdentityDetails[]> {
  const all = await connection.client.identities.list(organizationOf(connection), { signal });
  return all.filter((identity) => identity.name === obj.spec.name.trim());
}

/** The managed identity, or undefined when there is none (see the module comment). */
export async function findIdentity(
  connection: ResolvedConnection,
  obj: ManagedObject<IdentitySpec>,
  ctx: ExternalContext<IdentityRefs>,
): Promise<IdentityDetails | undefined> {
  if (ctx.externalId) {
    return unlessNotFound(connection.client.identities.get(ctx.externalId, { signal: ctx.signal }));
  }
  const matches = await identitiesNamed(connection, obj, ctx.signal);
  if (matches.length > 1) {
    throw new TerminalError(
      identityReasons.names.AmbiguousName,
      `cannot adopt identity ${obj.spec.name}: ${matches.length} identities of the organization have this name; ` +
        `set the ${ANNOTATION_EXTERNAL_ID} annotation to the id of the one to manage`,
    );
  }
  return matches[0];
}
