/**
 * Where a `dynamicSecret` source's leases live: the project by slug (the lease routes take only a
 * slug, so a project named by id or by a Project resource is looked up once per delivery), the
 * environment and the folder; and the hash of what a lease is asked with, recorded in status so a
 * change of it (and nothing else) issues a new lease.
 */
import { createHash } from 'node:crypto';
import type { WorkloadSecretSource, WorkloadSecretStatus } from '../../../api/v1alpha1/index.ts';
import type { LeaseScope } from '../../../client/index.ts';
import type { ManagedObject } from '../../../managed/external-client.ts';
import { projectAddress, type SourceContext } from '../sources.ts';

/** A lease held for a source, as status records it. */
export type HeldLease = NonNullable<WorkloadSecretStatus['leases']>[number];
/** A replaced lease waiting for its revocation. */
export type RetiredLease = NonNullable<WorkloadSecretStatus['retiredLeases']>[number];

/** A `dynamicSecret` source with its index in `spec.sources`. */
export interface LeaseSource {
  readonly index: number;
  readonly source: WorkloadSecretSource;
  readonly lease: NonNullable<WorkloadSecretSource['dynamicSecret']>;
}

/** The sources of `sources` that hold leases. */
export function leaseSources(sources: readonly WorkloadSecretSource[]): LeaseSource[] {
  return sources.flatMap((source, index) =>
    source.dynamicSecret ? [{ index, source, lease: source.dynamicSecret }] : [],
  );
}

/** The lease scope of `source` (the project's slug looked up when it is named by id). */
export async function leaseScopeOf(
  obj: ManagedObject<unknown>,
  source: WorkloadSecretSource,
  ctx: SourceContext,
): Promise<LeaseScope> {
  const address = await projectAddress(obj, source, ctx);
  const projectSlug =
    'projectSlug' in address
      ? address.projectSlug
      : (await ctx.client.projects.get(address.workspaceId, { signal: ctx.signal })).slug;
  return { projectSlug, environmentSlug: source.environment, path: source.secretPath };
}

/** The scope a recorded lease was issued in. */
export function scopeOfHeld(held: HeldLease): LeaseScope {
  return { projectSlug: held.projectSlug, environmentSlug: held.environment, path: held.secretPath };
}

/** Hash of what a lease of `source` is asked with (dynamic secret, folder, TTL): no secret in it. */
export function paramsHash(scope: LeaseScope, source: LeaseSource): string {
  const params = [
    scope.projectSlug,
    scope.environmentSlug,
    scope.path,
    source.lease.name,
    source.lease.ttl ?? '',
  ];
  return createHash('sha256').update(JSON.stringify(params)).digest('hex').slice(0, 16);
}
