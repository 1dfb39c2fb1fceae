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
import type { IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import type {
  Creation,
  ExternalClient,
  ManagedAdapter,
  Observation,
  Update,
} from '../../managed/external-client.ts';
import { identityProtection, naturalKeyMatch } from '../../managed/external-client.ts';
import { isObserveOnly } from '../../managed/spec.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { bindingFor } from './binding.ts';
import { credentialInput, type AdapterDeps } from './credential-input.ts';
import {
  applyCredentials,
  inspectCredentials,
  keptCredentials,
  type CredentialResult,
} from './credential-sync.ts';
import { describeCredentialPlan, nextCredentialWakeMs } from './credentials.ts';
import { configDrift, keyHashes, observedDrift, recordedHashes } from './drift.ts';
import { resolveIdentityAuthRefs } from './references.ts';
import { revokeAll, revokeReplaced } from './revocation.ts';
import {
  statusOf,
  type IdentityAuthContext as Context,
  type IdentityAuthObject as Obj,
  type IdentityAuthRefs,
  type IdentityAuthStatusFields,
} from './status.ts';

/** Requeue soon after an attach whose credentials could not be issued yet. */
const completeCreateAfterMs = 5_000;

async function observe(
  deps: AdapterDeps,
  obj: Obj,
  ctx: Context,
): Promise<Observation<IdentityAuthStatusFields>> {
  const { identityId, material } = ctx.references;
  const binding = bindingFor(deps.client, obj.spec.method, material);
  const observed = await binding.get(identityId, { signal: ctx.signal });
  if (!observed) return { exists: false };
  const drift = observedDrift(obj, observed, material);
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
      ...recordedHashes(obj),
    }),
    ...(drift.length > 0 ? { diff: drift.join(', ') } : {}),
  };
}

async function create(
  deps: AdapterDeps,
  obj: Obj,
  ctx: Context,
): Promise<Creation<IdentityAuthStatusFields>> {
  await revokeReplaced(deps.client, obj, ctx);
  const binding = bindingFor(deps.client, obj.spec.method, ctx.references.material);
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
    status: statusOf(obj, ctx, observed.config, { credentials, ...keyHashes(obj, ctx.references.material) }),
    ...(secretData ? { secretData } : {}),
  };
}

async function update(deps: AdapterDeps, obj: Obj, ctx: Context): Promise<Update<IdentityAuthStatusFields>> {
  await revokeReplaced(deps.client, obj, ctx);
  const { identityId, material } = ctx.references;
  const binding = bindingFor(deps.client, obj.spec.method, material);
  const current = await binding.get(identityId, { signal: ctx.signal });
  const observed =
    current && configDrift(obj, current, material).length === 0
      ? current
      : await binding.update(identityId, obj.spec, { signal: ctx.signal });
  const input = credentialInput(deps, obj, ctx, observed.config);
  const { status: credentials, secretData } = await applyCredentials(input, await inspectCredentials(input));
  return {
    status: statusOf(obj, ctx, observed.config, { credentials, ...keyHashes(obj, material) }),
    ...(secretData ? { secretData } : {}),
  };
}

function identityAuthClient(
  deps: AdapterDeps,
): ExternalClient<IdentityAuthSpec, IdentityAuthRefs, IdentityAuthStatusFields> {
  const { client, services, protectedIdentities: protectedIds } = deps;
  return {
    observe: (obj, ctx) => observe(deps, obj, ctx),
    create: (obj, ctx) => create(deps, obj, ctx),
    update: (obj, ctx) => update(deps, obj, ctx),
    // Revoking a method also revokes every credential issued through it.
    delete: (obj, ctx) => revokeAll(client, obj, ctx),
    // Attaching, changing or revoking a method of a protected identity could lock it out.
    protection: (_obj, { references: r }) => identityProtection(protectedIds, r.identityId, r.identity),
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
    resolveReferences: (obj, context) => resolveIdentityAuthRefs(services, obj, context),
    async connect(obj) {
      const connection = await services.connectionFor(obj);
      const { client, protectedIdentities } = connection;
      return identityAuthClient({ client, services, protectedIdentities });
    },
  };
}
