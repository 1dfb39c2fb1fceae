/**
 * Revoking the methods an IdentityAuth attached. Revoking a method also revokes every credential
 * issued through it, so neither function touches credentials.
 */
import type { AuthMethod } from '../../api/v1alpha1/index.ts';
import type { ServiceClient } from '../../client/index.ts';
import { bindingFor } from './binding.ts';
import { previousOf, type IdentityAuthContext, type IdentityAuthObject } from './status.ts';

/** Revokes the method recorded in status when `spec.method` has changed since; else nothing. */
export async function revokeReplaced(
  client: ServiceClient,
  obj: IdentityAuthObject,
  ctx: IdentityAuthContext,
): Promise<void> {
  const old = previousOf(obj)?.method;
  if (old && old !== obj.spec.method)
    await bindingFor(client, old).revoke(ctx.references.identityId, { signal: ctx.signal });
}

/** Revokes the spec's method and the one recorded in status (the delete of an IdentityAuth). */
export async function revokeAll(
  client: ServiceClient,
  obj: IdentityAuthObject,
  ctx: IdentityAuthContext,
): Promise<void> {
  const methods = new Set<AuthMethod>([obj.spec.method]);
  const old = previousOf(obj)?.method;
  if (old) methods.add(old);
  for (const method of methods) {
    await bindingFor(client, method).revoke(ctx.references.identityId, { signal: ctx.signal });
  }
}
