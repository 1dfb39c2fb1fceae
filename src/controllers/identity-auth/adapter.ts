/**
 * IdentityAuth adapter: one authentication method attached to an identity, and the credentials
 * issued for workloads.
 *
 * The natural key is identity + method (an identity has at most one configuration per method),
 * so observe and crash recovery are both "GET the method on the identity"; the external id is
 * the configuration's id. Changing `method` revokes the previously attached one (recorded in
 * `status.method`) before the new one is attached. Credentials: see `credentials.ts`; at most one
 * is issued per rotation step, even on a stale cache: see `issuance.ts`.
 */
import type { AuthMethod, IdentityAuthSpec, IdentityAuthStatus } from '../../api/v1alpha1/index.ts';
import type { ServiceClient } from '../../client/index.ts';
import type {
  Creation,
  ExternalClient,
  ExternalContext,
  ManagedAdapter,
  ManagedObject,
  Observation,
  Update,
} from '../../managed/external-client.ts';
import { naturalKeyMatch } from '../../managed/external-client.ts';
import { resolveReference } from '../../managed/references.ts';
import { isObserveOnly } from '../../managed/spec.ts';
import { getAnnotation } from '../../runtime/object-meta.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { bindingFor, jwtKeysHash, type ObservedConfig } from './binding.ts';
import { credentialOps } from './credential-ops.ts';
import {
  applyCredentials,
  inspectCredentials,
  keptCredentials,
  type CredentialInput,
  type CredentialResult,
} from './credential-sync.ts';
import { describeCredentialPlan, nextCredentialWakeMs, type CredentialsStatus } from './credentials.ts';
import { ANNOTATION_CREDENTIAL_ISSUE_STARTED } from './issuance.ts';

/** The adapter's part of IdentityAuth status. */
export type IdentityAuthStatusFields = Pick<
  IdentityAuthStatus,
  'identityId' | 'method' | 'clientId' | 'credentials' | 'jwtKeysHash'
>;

/** What references resolve to. */
export interface IdentityAuthRefs {
  readonly identityId: string;
}

type Obj = ManagedObject<IdentityAuthSpec>;
type Context = ExternalContext<IdentityAuthRefs>;

/** Requeue soon after an attach whose credentials could not be issued yet. */
const completeCreateAfterMs = 5_000;

function previousOf(obj: Obj): IdentityAuthStatusFields | undefined {
  return obj.status as IdentityAuthStatusFields | undefined;
}

function statusOf(
  obj: Obj,
  ctx: Context,
  config: ObservedConfig['config'],
  extra: { credentials?: CredentialsStatus | undefined; jwtKeysHash?: string | undefined },
): IdentityAuthStatusFields {
  return {
    identityId: ctx.references.identityId,
    method: obj.spec.method,
    ...(config.clientId ? { clientId: config.clientId } : {}),
    ...(extra.credentials ? { credentials: extra.credentials } : {}),
    ...(extra.jwtKeysHash ? { jwtKeysHash: extra.jwtKeysHash } : {}),
  };
}

/** Names of what differs besides credentials. */
function configDrift(obj: Obj, observed: ObservedConfig): string[] {
  const previous = previousOf(obj);
  const drift = observed.drift(obj.spec);
  const hash = jwtKeysHash(obj.spec);
  if (hash && previous?.jwtKeysHash !== hash) drift.push('publicKeys/jwksCaCert');
  return drift;
}

/** What the per-object functions below share. */
interface Deps {
  readonly client: ServiceClient;
  readonly services: OperatorServices;
  /** See `ResolvedConnection.protectedIdentities`. */
  readonly protectedIdentities?: ReadonlyMap<string, string> | undefined;
}

function credentialInput(
  deps: Deps,
  obj: Obj,
  ctx: Context,
  config: ObservedConfig['config'],
): CredentialInput {
  const previous = previousOf(obj);
  const { method } = obj.spec;
  const namespace = obj.metadata.namespace ?? '';
  const now = deps.services.now();
  const options = { client: deps.client, identityId: ctx.references.identityId, now, signal: ctx.signal };
  return {
    spec: obj.spec,
    // Credentials of another method died when that method was revoked.
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

/** Revokes the method attached before a change of `method`. */
async function revokeReplaced(deps: Deps, obj: Obj, ctx: Context): Promise<void> {
  const old = previousOf(obj)?.method;
  if (old && old !== obj.spec.method)
    await bindingFor(deps.client, old).revoke(ctx.references.identityId, { signal: ctx.signal });
}

async function observe(deps: Deps, obj: Obj, ctx: Context): Promise<Observation<IdentityAuthStatusFields>> {
  const binding = bindingFor(deps.client, obj.spec.method);
  const observed = await binding.get(ctx.references.identityId, { signal: ctx.signal });
  if (!observed) return { exists: false };
  const drift = configDrift(obj, observed);
  const old = previousOf(obj)?.method;
  if (old && old !== obj.spec.method) drift.push(`method (${old} still to revoke)`);
  const input = credentialInput(deps, obj, ctx, observed.config);
  const plan = await inspectCredentials(input);
  const credentials = describeCredentialPlan(plan);
  if (credentials) drift.push(credentials);
  return {
    exists: true,
    upToDate: drift.length === 0,
    externalId: observed.config.id,
    status: statusOf(obj, ctx, observed.config, {
      credentials: keptCredentials(input, plan),
      jwtKeysHash: previousOf(obj)?.jwtKeysHash,
    }),
    ...(drift.length > 0 ? { diff: drift.join(', ') } : {}),
  };
}

async function create(deps: Deps, obj: Obj, ctx: Context): Promise<Creation<IdentityAuthStatusFields>> {
  await revokeReplaced(deps, obj, ctx);
  const binding = bindingFor(deps.client, obj.spec.method);
  const observed = await binding.attach(ctx.references.identityId, obj.spec, { signal: ctx.signal });
  let result: CredentialResult = {};
  try {
    // A fresh attach: whatever was issued through an earlier attach of this method is gone.
    const input = { ...credentialInput(deps, obj, ctx, observed.config), previous: undefined };
    result = await applyCredentials(input, await inspectCredentials(input));
  } catch (error) {
    // The method is attached: report its id now; the next reconcile (within seconds) issues.
    ctx.log.warn({ err: error, externalId: observed.config.id }, 'cannot issue credentials yet');
  }
  const { status: credentials, secretData } = result;
  return {
    externalId: observed.config.id,
    status: statusOf(obj, ctx, observed.config, { credentials, jwtKeysHash: jwtKeysHash(obj.spec) }),
    ...(secretData ? { secretData } : {}),
  };
}

async function update(deps: Deps, obj: Obj, ctx: Context): Promise<Update<IdentityAuthStatusFields>> {
  await revokeReplaced(deps, obj, ctx);
  const binding = bindingFor(deps.client, obj.spec.method);
  const identityId = ctx.references.identityId;
  const current = await binding.get(identityId, { signal: ctx.signal });
  const observed =
    current && configDrift(obj, current).length === 0
      ? current
      : await binding.update(identityId, obj.spec, { signal: ctx.signal });
  const input = credentialInput(deps, obj, ctx, observed.config);
  const { status: credentials, secretData } = await applyCredentials(input, await inspectCredentials(input));
  return {
    status: statusOf(obj, ctx, observed.config, { credentials, jwtKeysHash: jwtKeysHash(obj.spec) }),
    ...(secretData ? { secretData } : {}),
  };
}

function identityAuthClient(
  deps: Deps,
): ExternalClient<IdentityAuthSpec, IdentityAuthRefs, IdentityAuthStatusFields> {
  const { client, services } = deps;
  return {
    observe: (obj, ctx) => observe(deps, obj, ctx),
    create: (obj, ctx) => create(deps, obj, ctx),
    update: (obj, ctx) => update(deps, obj, ctx),
    async delete(obj, ctx) {
      // Revoking a method also revokes every credential issued through it.
      const methods = new Set<AuthMethod>([obj.spec.method]);
      const old = previousOf(obj)?.method;
      if (old) methods.add(old);
      for (const method of methods) {
        await bindingFor(client, method).revoke(ctx.references.identityId, { signal: ctx.signal });
      }
    },
    // Attaching, changing or revoking a method of a protected identity could lock it out.
    protectedReason: (_obj, ctx) => deps.protectedIdentities?.get(ctx.references.identityId),
    async findByNaturalKey(obj, ctx) {
      const binding = bindingFor(client, obj.spec.method);
      const observed = await binding.get(ctx.references.identityId, { signal: ctx.signal });
      return observed ? [naturalKeyMatch(observed.config)] : [];
    },
    requeueAfterMs(obj, status) {
      if (isObserveOnly(obj.spec)) return undefined;
      if (obj.spec.credentials && !status?.credentials?.current) return completeCreateAfterMs;
      return nextCredentialWakeMs(status?.credentials, services.now());
    },
  };
}

/** The IdentityAuth adapter on the operator's services. */
export function identityAuthAdapter(
  services: OperatorServices,
): ManagedAdapter<IdentityAuthSpec, IdentityAuthRefs, IdentityAuthStatusFields> {
  return {
    async resolveReferences(obj, context) {
      const fallbackId = previousOf(obj)?.identityId;
      const resolved = await resolveReference({
        reader: services.reader('Identity'),
        kind: 'Identity',
        from: obj,
        ref: obj.spec.identityRef,
        context,
        // While deleting, the Identity resource may already be gone.
        ...(fallbackId ? { fallbackId } : {}),
      });
      return { identityId: resolved.externalId };
    },
    async connect(obj) {
      const connection = await services.connectionFor(obj);
      const { client, protectedIdentities } = connection;
      return identityAuthClient({ client, services, protectedIdentities });
    },
  };
}
