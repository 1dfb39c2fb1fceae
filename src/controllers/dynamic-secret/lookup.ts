/**
 * Finding a dynamic secret. The service addresses one by name in its folder (no get-by-id): with a
 * recorded id the last recorded name and the spec's name are tried, and one renamed behind our back
 * is found by id in the folder's list. Without an id, the spec's name is the natural key.
 */
import type { DynamicSecretSpec } from '../../api/v1alpha1/index.ts';
import {
  type DynamicSecret,
  type DynamicSecretScope,
  type ServiceClient,
  unlessNotFound,
} from '../../client/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';

/** The scope of the spec's folder in the project `projectSlug`. */
export function scopeOf(spec: DynamicSecretSpec, projectSlug: string): DynamicSecretScope {
  return { projectSlug, environmentSlug: spec.environment, path: spec.secretPath };
}

/** The dynamic secret `name` of the folder (with its inputs), or undefined when there is none. */
export function findByName(
  client: ServiceClient,
  scope: DynamicSecretScope,
  name: string,
  signal: AbortSignal,
): Promise<DynamicSecret | undefined> {
  return unlessNotFound(client.dynamicSecrets.get(name, scope, { signal }));
}

/** The name last recorded in status, if any. */
export function recordedName(obj: ManagedObject<DynamicSecretSpec>): string | undefined {
  const name = obj.status?.name;
  return typeof name === 'string' && name ? name : undefined;
}

/** The dynamic secret with `id` (with its inputs): by the known names first, else through the list. */
export async function findById(
  client: ServiceClient,
  obj: ManagedObject<DynamicSecretSpec>,
  scope: DynamicSecretScope,
  { id, signal }: { id: string; signal: AbortSignal },
): Promise<DynamicSecret | undefined> {
  for (const name of new Set([recordedName(obj) ?? obj.spec.name, obj.spec.name])) {
    const found = await findByName(client, scope, name, signal);
    if (found?.id === id) return found;
  }
  const listed = (await client.dynamicSecrets.list(scope, { signal })).find((d) => d.id === id);
  return listed ? findByName(client, scope, listed.name, signal) : undefined;
}
