/**
 * Credential plumbing of the IdentityAuth adapter: what the adapter's operations share (`AdapterDeps`)
 * and the `CredentialInput` of `credential-sync.ts` built from a resource and its observed
 * configuration.
 */
import type { ServiceClient } from '../../client/index.ts';
import { getAnnotation } from '../../runtime/object-meta.ts';
import type { OperatorServices } from '../kind-controller.ts';
import type { ObservedConfig } from './binding.ts';
import { credentialOps } from './credential-ops.ts';
import type { CredentialInput } from './credential-sync.ts';
import { ANNOTATION_CREDENTIAL_ISSUE_STARTED } from './issuance.ts';
import { previousOf, type IdentityAuthContext, type IdentityAuthObject } from './status.ts';

/** What the adapter's per-object operations share. */
export interface AdapterDeps {
  readonly client: ServiceClient;
  readonly services: OperatorServices;
  /** See `ResolvedConnection.protectedIdentities`. */
  readonly protectedIdentities?: ReadonlyMap<string, string> | undefined;
}

/**
 * The credential step's input: the previous credentials only when recorded for the same method
 * (those of another method died with its revocation), credential operations only for the
 * methods that issue credentials (token, universal), the Secret read in the resource's namespace,
 * and the issuance mark written through `ctx.annotate`.
 */
export function credentialInput(
  deps: AdapterDeps,
  obj: IdentityAuthObject,
  ctx: IdentityAuthContext,
  config: ObservedConfig['config'],
): CredentialInput {
  const previous = previousOf(obj);
  const { method } = obj.spec;
  const namespace = obj.metadata.namespace ?? '';
  const now = deps.services.now();
  const options = { client: deps.client, identityId: ctx.references.identityId, now, signal: ctx.signal };
  return {
    spec: obj.spec,
    previous: previous?.method === method ? previous.credentials : undefined,
    ops:
      method === 'token' || method === 'universal'
        ? credentialOps(method, { ...options, ...(config.clientId ? { clientId: config.clientId } : {}) })
        : undefined,
    readSecret: (name) => deps.services.secrets.read(namespace, name),
    now,
    label: `coffer:${namespace}/${obj.metadata.name}`,
    issueStarted: getAnnotation(obj, ANNOTATION_CREDENTIAL_ISSUE_STARTED),
    markIssueStarted: (at) =>
      ctx.annotate({ [ANNOTATION_CREDENTIAL_ISSUE_STARTED]: at }, 'mark credential issuance'),
    log: ctx.log,
  };
}
