// IdentityAuth issues one credential per rotation step, whatever the cache says: a token-auth
// IdentityAuth (access token in a Secret, rotated daily) reconciled by the generic reconciler
// against the real API server and a devserver, driven step by step so that a reconcile can be
// handed a stale read (the id recorded, the status with the token not yet) or end before its
// status is written. The operator runs the Identity kind only, so nothing else reconciles the
// IdentityAuth objects; each has its own Identity (an identity has one configuration per method).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityAuthKind } from '../../src/api/v1alpha1/index.ts';
import { createServiceClient, staticToken } from '../../src/client/index.ts';
import { identityAuthAdapter } from '../../src/controllers/identity-auth/adapter.ts';
import { ANNOTATION_CREDENTIAL_ISSUE_STARTED } from '../../src/controllers/identity-auth/issuance.ts';
import { identityController } from '../../src/controllers/identity/index.ts';
import { STATUS_CREATE_PENDING } from '../../src/managed/create-mark.ts';
import type { ManagedObject } from '../../src/managed/external-client.ts';
import { customObjectPatcher, customObjectReader } from '../../src/managed/kube-objects.ts';
import { createManagedReconciler } from '../../src/managed/reconciler.ts';
import { resourceOf } from '../../src/operator/informers.ts';
import { ReconcileError } from '../../src/runtime/errors.ts';
import { createEventRecorder, kubeEventsApi } from '../../src/runtime/events.ts';
import { ANNOTATION_EXTERNAL_ID, type ObjectPatcher } from '../../src/runtime/object-meta.ts';
import { createSecretWriter } from '../../src/runtime/secret-writer.ts';
import { pino } from 'pino';
import { waitFor } from '../support/kube.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

type Obj = ManagedObject<unknown>;

let h: OperatorHarness;
/** Service ids of the Identity resources, by name (one per IdentityAuth: the method is per identity). */
const identityIds: Record<string, string> = {};
/** Every credential value seen, to check none leaked. */
const issued: string[] = [];

/** Token auth with an access token issued into a Secret and replaced every day. */
const tokenAuth = {
  method: 'token',
  accessTokenTTL: 172800,
  accessTokenMaxTTL: 172800,
  credentials: { rotateEvery: '24h', overlap: '10m' },
};

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [identityController] } });
  for (const name of ['stale', 'interrupted']) {
    await h.create('Identity', name, { connectionRef: { name: HARNESS_CONNECTION }, name, role: 'admin' });
  }
  for (const name of ['stale', 'interrupted']) {
    identityIds[name] = (await h.waitForReady('Identity', name)).status?.id ?? '';
  }
});

afterAll(async () => {
  await h?.stop();
});

/**
 * The IdentityAuth reconciler on the API server, with two test levers: `staleRead` (the next
 * read returns it instead of the stored object) and `failStatusWrites` (status writes after the
 * create mark fail, as if the process died before recording). `writes` holds the object after each
 * metadata write.
 */
/** True for the create mark the reconciler writes to status before a create (`create-mark.ts`). */
function isCreateMark(patch: unknown): boolean {
  const status = (patch as { status?: Record<string, unknown> }).status ?? {};
  return Object.keys(status).length === 1 && STATUS_CREATE_PENDING in status;
}

function steppedReconciler() {
  const resource = resourceOf(identityAuthKind);
  const direct = customObjectReader<Obj>(h.kubeConfig, resource);
  const patcher = customObjectPatcher<Obj>(h.kubeConfig, resource);
  const levers = { staleRead: undefined as Obj | undefined, failStatusWrites: false, writes: [] as Obj[] };
  const recording: ObjectPatcher<Obj> = {
    jsonPatch: async (ref, operations) => {
      const stored = await patcher.jsonPatch(ref, operations);
      levers.writes.push(stored);
      return stored;
    },
    mergePatch: async (ref, patch) => {
      const stored = await patcher.mergePatch(ref, patch);
      levers.writes.push(stored);
      return stored;
    },
    mergePatchStatus: (ref, patch) =>
      levers.failStatusWrites && !isCreateMark(patch)
        ? Promise.reject(new Error('status write refused by the test'))
        : patcher.mergePatchStatus(ref, patch),
  };
  const reconciler = createManagedReconciler({
    schema: identityAuthKind.spec,
    adapter: identityAuthAdapter(h.operator.services),
    reader: {
      get: (request) => {
        const stale = levers.staleRead;
        levers.staleRead = undefined;
        return stale ? Promise.resolve(stale) : direct.get(request);
      },
    },
    patcher: recording,
    events: createEventRecorder({ api: kubeEventsApi(h.kubeConfig), component: 'coffer-test' }),
    secrets: createSecretWriter({ api: h.core }),
    defaultDeletionPolicy: 'Delete',
    persistRetryDelaysMs: [50],
  });
  const context = { signal: new AbortController().signal, log: pino({ level: 'silent' }) };
  /** One reconcile of `name`; resolves with its classified error, if any. */
  const reconcile = async (name: string): Promise<ReconcileError | undefined> => {
    try {
      await reconciler({ namespace: h.namespace, name }, context);
      return undefined;
    } catch (error) {
      if (error instanceof ReconcileError) return error;
      throw error;
    }
  };
  return { levers, reconcile };
}

/** The token-auth spec for the Identity named `name`, publishing into `secretName`. */
function sampleSpec(name: string, secretName: string): Record<string, unknown> {
  return {
    ...tokenAuth,
    connectionRef: { name: HARNESS_CONNECTION },
    identityRef: { name },
    credentials: { ...tokenAuth.credentials, secretName },
  };
}

/** Ids of the live tokens of Identity `name` carrying the label of IdentityAuth `name`. */
async function liveTokens(name: string): Promise<string[]> {
  const label = `coffer:${h.namespace}/${name}`;
  const tokens = await h.service.tokenAuthTokens.list(identityIds[name] ?? '', { limit: 100 });
  return tokens.filter((t) => t.name === label && t.isAccessTokenRevoked !== true).map((t) => t.id);
}

async function currentTokenId(name: string): Promise<string> {
  const credentials = (await h.get('IdentityAuth', name))?.status?.credentials as
    { current?: { id: string } } | undefined;
  return credentials?.current?.id ?? '';
}

/** Whether the token in Secret `secretName` authenticates. */
async function secretTokenWorks(secretName: string): Promise<boolean> {
  const token = (await h.readSecret(secretName))?.accessToken ?? '';
  issued.push(token);
  const workload = createServiceClient({ baseUrl: h.url, auth: staticToken(token) });
  try {
    await workload.identities.list(h.admin.organizationId);
    return true;
  } catch {
    return false;
  } finally {
    await workload.close();
  }
}

describe('IdentityAuth: one credential per rotation step', () => {
  it('issues nothing on a reconcile that reads the resource as it was before the status write', async () => {
    await h.create('IdentityAuth', 'stale', sampleSpec('stale', 'stale-token'));
    const { levers, reconcile } = steppedReconciler();
    expect(await reconcile('stale')).toBeUndefined();
    const tokens = await liveTokens('stale');
    expect(tokens).toEqual([await currentTokenId('stale')]);

    // What a lagging informer cache hands the next reconcile: the id recorded, no status yet.
    const beforeStatus = levers.writes.find((o) => o.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]);
    expect(beforeStatus?.status?.credentials).toBeUndefined();
    levers.staleRead = beforeStatus;
    const stale = await reconcile('stale');
    expect(stale?.errorClass).toBe('conflict');
    expect(await liveTokens('stale')).toEqual(tokens);

    // The next reconcile, on the stored object, has nothing to issue (once the operator's Secret
    // source sees the published token: a missing one would rightly be replaced).
    const published = (await h.readSecret('stale-token'))?.accessToken;
    await waitFor(
      async () =>
        (await h.operator.services.secrets.read(h.namespace, 'stale-token'))?.accessToken === published,
      { message: 'the published token visible to the operator' },
    );
    expect(await reconcile('stale')).toBeUndefined();
    expect(await liveTokens('stale')).toEqual(tokens);
    expect(await currentTokenId('stale')).toBe(tokens[0]);
    expect(await secretTokenWorks('stale-token')).toBe(true);
  });

  it('revokes the token of an issuance that was never recorded before issuing the next', async () => {
    await h.create('IdentityAuth', 'interrupted', sampleSpec('interrupted', 'interrupted-token'));
    const { levers, reconcile } = steppedReconciler();
    levers.failStatusWrites = true;
    expect(await reconcile('interrupted')).toBeDefined();
    const stored = await h.get('IdentityAuth', 'interrupted');
    expect(stored?.metadata.annotations?.[ANNOTATION_CREDENTIAL_ISSUE_STARTED]).toBeDefined();
    expect(stored?.status?.credentials).toBeUndefined();
    const [lost, ...others] = await liveTokens('interrupted');
    expect(others).toEqual([]);

    levers.failStatusWrites = false;
    expect(await reconcile('interrupted')).toBeUndefined();
    const current = await currentTokenId('interrupted');
    expect(current).not.toBe(lost);
    expect(await liveTokens('interrupted')).toEqual([current]);
    expect(await secretTokenWorks('interrupted-token')).toBe(true);
  });

  it('never puts a token in status or annotations', async () => {
    const objects = JSON.stringify([
      await h.get('IdentityAuth', 'stale'),
      await h.get('IdentityAuth', 'interrupted'),
    ]);
    expect(issued.filter((v) => v.length > 0).length).toBe(2);
    for (const value of issued.filter((v) => v.length > 0)) expect(objects).not.toContain(value);
  });
});
