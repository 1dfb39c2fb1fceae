/**
 * The reconcile of a Bootstrap. The bootstrap call can succeed only once per instance and its
 * token exists nowhere else, so:
 *
 * - our output Secret already holds a token → Ready, no service call at all;
 * - the output Secret exists but is not ours → `SecretNotOwned`, no call (the token would have
 *   nowhere to go);
 * - otherwise call the bootstrap endpoint once and write token, identityId, organizationId and
 *   userId into the output Secret (owned by the Bootstrap). The result is kept in memory until
 *   the Secret is written, so a failed write is retried without a second call;
 * - the service says the instance is already set up → `Synced=False` reason
 *   `AlreadyBootstrapped`, not retried until the spec changes.
 *
 * With `createConnection: true`, a Connection using the output Secret is created (owned).
 */
import { createServiceClient, isAlreadyBootstrapped, type BootstrapResult } from '../../client/index.ts';
import type { BootstrapSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { Reasons } from '../../runtime/conditions.ts';
import type { EventInput } from '../../runtime/events.ts';
import { controllerOf, isManagedByCoffer } from '../../runtime/object-meta.ts';
import type { DirectContext, DirectOutcome, DirectServices, DirectSync } from '../../managed/direct/kind.ts';
import { MissingCredentialsError, place, readKey, readTls } from '../../managed/connections/credentials.ts';
import { connectionNameOf, ensureConnection, TOKEN_KEY } from './output-connection.ts';
import { bootstrapReasons } from './reasons.ts';
import type { Reason } from '../../runtime/reasons.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';

/** Condition reason when someone else bootstrapped the instance. */
export const ALREADY_BOOTSTRAPPED = bootstrapReasons.names.AlreadyBootstrapped;

/** Status fields of a Bootstrap besides the common ones. */
export interface BootstrapStatusFields extends Record<string, unknown> {
  readonly organizationId?: string;
  readonly userId?: string;
  readonly identityId?: string;
  readonly connectionName?: string;
}

/** What the output Secret holds. */
export interface BootstrapOutput {
  readonly token: string;
  readonly identityId: string;
  readonly organizationId: string;
  readonly userId: string;
}

function stopped(reason: Reason, message: string): DirectOutcome<BootstrapStatusFields> {
  const state = { status: 'False', reason, message } as const;
  return { ready: state, synced: state, requeueAfterMs: null };
}

function outputOf(result: BootstrapResult): BootstrapOutput {
  return {
    token: result.identity.credentials.token,
    identityId: result.identity.id,
    organizationId: result.organization.id,
    userId: result.user.id,
  };
}

type OutputState =
  | { readonly state: 'missing' | 'foreign' }
  | { readonly state: 'ours'; readonly data: Record<string, string> };

async function readOutput(services: DirectServices, obj: ManagedObject<BootstrapSpec>): Promise<OutputState> {
  const namespace = obj.metadata.namespace ?? '';
  const name = obj.spec.outputSecretName;
  let secret;
  try {
    secret = await services.core.readNamespacedSecret({ namespace, name });
  } catch (error) {
    if ((error as { code?: unknown }).code === 404) return { state: 'missing' };
    throw error;
  }
  const ours = isManagedByCoffer(secret) && controllerOf(secret)?.uid === obj.metadata.uid;
  if (!ours) return { state: 'foreign' };
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data ?? {}))
    data[key] = Buffer.from(value, 'base64').toString('utf8');
  return { state: 'ours', data };
}

function alreadyBootstrapped(obj: ManagedObject<BootstrapSpec>): DirectOutcome<BootstrapStatusFields> {
  const recorded = obj.status?.organizationId;
  const earlier = typeof recorded === 'string' ? recorded : undefined;
  const detail = earlier
    ? `this Bootstrap set it up earlier (organization ${earlier}), but its output Secret ` +
      `${obj.spec.outputSecretName} with the token is gone and the token cannot be recovered`
    : 'someone else bootstrapped it; use their credentials in a Connection instead';
  return stopped(ALREADY_BOOTSTRAPPED, `the instance at ${obj.spec.url} is already set up: ${detail}`);
}

async function callBootstrap(
  services: DirectServices,
  obj: ManagedObject<BootstrapSpec>,
  ctx: DirectContext,
): Promise<BootstrapOutput | DirectOutcome<BootstrapStatusFields>> {
  const namespace = obj.metadata.namespace ?? '';
  const password = await readKey(services.secrets, 'Secret', place(obj.spec.passwordSecretRef, namespace));
  const tls = await readTls(obj.spec, namespace, services);
  const client = createServiceClient({ baseUrl: obj.spec.url, ...(tls ? { tls } : {}) });
  try {
    const input = { email: obj.spec.email, password, organization: obj.spec.organization };
    return outputOf(await client.admin.bootstrap(input, { signal: ctx.signal }));
  } catch (error) {
    if (isAlreadyBootstrapped(error)) return alreadyBootstrapped(obj);
    throw error;
  } finally {
    await client.close();
  }
}

/** A successful call whose Secret is not written yet. */
interface Pending {
  readonly uid: string | undefined;
  readonly output: BootstrapOutput;
}

const keyOf = (obj: { metadata: { namespace?: string; name: string } }) =>
  `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;

async function obtainOutput(
  services: DirectServices,
  obj: ManagedObject<BootstrapSpec>,
  ctx: DirectContext,
  pending: Map<string, Pending>,
): Promise<{ output: BootstrapOutput; fresh: boolean } | DirectOutcome<BootstrapStatusFields>> {
  const current = await readOutput(services, obj);
  if (current.state === 'foreign') {
    return stopped(
      commonReasons.names.SecretNotOwned,
      `Secret ${obj.spec.outputSecretName} exists and is not owned by this Bootstrap; no bootstrap call was made. ` +
        'Delete it or choose another outputSecretName',
    );
  }
  if (current.state === 'ours' && current.data[TOKEN_KEY]) {
    const { data } = current;
    const output = {
      token: data[TOKEN_KEY] ?? '',
      identityId: data.identityId ?? '',
      organizationId: data.organizationId ?? '',
      userId: data.userId ?? '',
    };
    return { output, fresh: false };
  }
  const kept = pending.get(keyOf(obj));
  if (kept && kept.uid === obj.metadata.uid) return { output: kept.output, fresh: true };
  const called = await callBootstrap(services, obj, ctx);
  if (!('token' in called)) return called;
  pending.set(keyOf(obj), { uid: obj.metadata.uid, output: called });
  return { output: called, fresh: true };
}

/** The sync of Bootstrap. */
export function bootstrapSync(services: DirectServices): DirectSync<BootstrapSpec, BootstrapStatusFields> {
  // Results of successful calls whose Secret is not written yet, by namespace/name.
  const pending = new Map<string, Pending>();
  return {
    async sync(obj, ctx) {
      let obtained;
      try {
        obtained = await obtainOutput(services, obj, ctx, pending);
      } catch (error) {
        if (error instanceof MissingCredentialsError) return stopped(error.reason, error.message);
        throw error;
      }
      if (!('output' in obtained)) return obtained;
      const { output, fresh } = obtained;
      const events: EventInput[] = [];
      if (fresh) {
        const { token, identityId, organizationId, userId } = output;
        const data = { [TOKEN_KEY]: token, identityId, organizationId, userId };
        await services.secretWriter.write(obj, { name: obj.spec.outputSecretName, data });
        pending.delete(keyOf(obj));
        events.push({
          type: 'Normal',
          reason: 'Bootstrapped',
          message: `bootstrapped ${obj.spec.url}: organization ${organizationId}`,
        });
      }
      let connectionName: string | undefined;
      if (obj.spec.createConnection) {
        connectionName = connectionNameOf(obj);
        const result = await ensureConnection(services.customObjects, obj);
        if (result !== 'unchanged')
          events.push({
            type: 'Normal',
            reason: 'PublishedConnection',
            message: `${result} Connection ${connectionName}`,
          });
      }
      return {
        ready: {
          status: 'True',
          reason: Reasons.Available,
          message: `Secret ${obj.spec.outputSecretName} holds the credentials`,
        },
        id: output.organizationId,
        status: {
          organizationId: output.organizationId,
          userId: output.userId,
          identityId: output.identityId,
          ...(connectionName ? { connectionName } : {}),
        },
        events,
      };
    },
    forget(request) {
      pending.delete(keyOf({ metadata: request }));
    },
  };
}
