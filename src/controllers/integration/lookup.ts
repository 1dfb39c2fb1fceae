/**
 * Finding the integration an Integration manages: by its recorded id, or (adoption) by the
 * natural key (integration, environment, secretPath, app) in the project's integrations list.
 * Adoption refuses, terminally, when several integrations match or when the found one is of
 * another integration type than the spec names.
 */
import type { IntegrationSpec } from '../../api/v1alpha1/index.ts';
import { type Integration, type ServiceClient, unlessNotFound } from '../../client/index.ts';
import type { ExternalContext, ManagedObject } from '../../managed/external-client.ts';
import { managedReasons } from '../../managed/reasons.ts';
import { TerminalError } from '../../runtime/errors.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../runtime/object-meta.ts';
import { standingRefusal } from './create.ts';
import { matchesNaturalKey } from './mapping.ts';
import { integrationReasons } from './reasons.ts';
import { resolved, type IntegrationRefs } from './references.ts';

type Obj = ManagedObject<IntegrationSpec>;

/** The project's integrations that match the spec's natural key (any number of them). */
export async function byNaturalKey(
  client: ServiceClient,
  obj: Obj,
  projectId: string,
  signal: AbortSignal,
): Promise<Integration[]> {
  const all = await client.integrations.list(projectId, { signal });
  return all.filter((integration) => matchesNaturalKey(obj.spec, integration));
}

/**
 * The managed integration, or undefined when there is none. Without a recorded id it throws the
 * standing refusal of creates (`create.ts`) first, and `AmbiguousNaturalKey` when several match.
 */
export async function findIntegration(
  client: ServiceClient,
  obj: Obj,
  ctx: ExternalContext<IntegrationRefs>,
): Promise<Integration | undefined> {
  if (ctx.externalId) return unlessNotFound(client.integrations.get(ctx.externalId, { signal: ctx.signal }));
  const refused = standingRefusal(obj);
  if (refused) throw refused;
  const matches = await byNaturalKey(client, obj, resolved(ctx.references).projectId, ctx.signal);
  if (matches.length > 1) {
    throw new TerminalError(
      integrationReasons.names.AmbiguousNaturalKey,
      `cannot adopt integration: ${matches.length} integrations of the project match integration, environment, ` +
        `secretPath and app; set the ${ANNOTATION_EXTERNAL_ID} annotation to the id of the one to manage`,
    );
  }
  return matches[0];
}

/** Throws `SpecMismatch` (terminal) when `integration` is not of the type the spec names. */
export function checkType(obj: Obj, integration: Integration): void {
  if (integration.integration === obj.spec.integration) return;
  throw new TerminalError(
    managedReasons.names.SpecMismatch,
    `cannot manage integration ${integration.id}: it is a ${integration.integration} integration, the spec ` +
      `says ${obj.spec.integration}; set ${ANNOTATION_EXTERNAL_ID} to an integration of that type`,
  );
}
