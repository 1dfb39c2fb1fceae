/**
 * Integration references: `projectRef` → project id, and the credentials from the referenced
 * Secrets. Nothing is resolved while deleting: an integration is deleted by its own id.
 */
import type { IntegrationSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject, ResolveContext } from '../../managed/external-client.ts';
import { resolveReference } from '../../managed/references.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { readCredentials, type Credentials } from './credentials.ts';

/** What references resolve to (empty while deleting). */
export interface IntegrationRefs {
  readonly projectId?: string;
  readonly credentials?: Credentials;
}

/** Resolves the project (waiting while it is not Ready) and reads the credentials. */
export async function resolveIntegrationRefs(
  services: OperatorServices,
  obj: ManagedObject<IntegrationSpec>,
  context: ResolveContext,
): Promise<IntegrationRefs> {
  if (context.deleting) return {};
  const project = await resolveReference({
    reader: services.reader('Project'),
    kind: 'Project',
    from: obj,
    ref: obj.spec.projectRef,
    context,
  });
  return { projectId: project.externalId, credentials: await readCredentials(services.secrets, obj) };
}

/** The resolved references, or an error when they were not resolved (only while deleting). */
export function resolved(refs: IntegrationRefs): { projectId: string; credentials: Credentials } {
  if (refs.projectId === undefined || refs.credentials === undefined)
    throw new Error('cannot address the integration: its references were not resolved');
  return { projectId: refs.projectId, credentials: refs.credentials };
}
