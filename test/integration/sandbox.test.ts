/**
 * `coffer sandbox` without its terminal: `startSandbox` starts its own control plane, CRDs,
 * devserver, Bootstrap, operator and the samples; every sample of a kind this build runs a
 * controller for gets Ready and Synced, and stays Synced after the Connection demo-ci logged in as
 * the Identity demo-ci (the identity the samples created stays theirs), the Bootstrap's Connection is created, the demo-ci ServiceAccount
 * logs in as demo-ci through Kubernetes auth (no stored token), the Connection demo-ci logs in as the
 * Identity it names (identityRef), the WorkloadSecret sample reads as demo-ci through it, delivers
 * the demo project's config into its Secret and a change in the service updates it and restarts
 * the sample Deployment demo-app exactly once, the DynamicSecret sample is Ready on the sandbox's
 * own PostgreSQL (required in CI) and the lease's user and password in demo-app-env log in to it,
 * the operator log holds no sample secret, kube-controller-manager garbage-collects owned objects,
 * and `stop()` leaves no process, port or directory behind (PostgreSQL's included).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { createServiceClient, staticToken } from '../../src/client/index.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_RECONCILE_REQUESTED_AT } from '../../src/runtime/object-meta.ts';
import { statusCodeOf } from '../../src/sandbox/control-plane/cluster.ts';
import { postgresInstalled } from '../../src/sandbox/postgres.ts';
import type { Sandbox } from '../../src/sandbox/sandbox.ts';
import { startSandbox } from '../../src/sandbox/start.ts';
import { isSettled, type ResourceState } from '../../src/sandbox/status.ts';
import { deliveredLeaseKeys, expectLeaseDelivered, secretData } from '../support/sandbox-lease.ts';
import { waitFor } from '../support/wait-for.ts';

/** A value written into the service by the test: it must reach the Secret, never the log. */
const welcome = `sandbox-welcome-${randomBytes(6).toString('hex')}`;
const RESTARTED_AT = 'coffer.dev/restarted-at';

interface WorkloadSecretStatus {
  pendingRestart?: unknown;
  lastRestart?: { time: string; workloads: string[] };
}

/** The coffer.dev object `name` of `plural` in the sandbox namespace. */
async function cofferObject<T>(sandbox: Sandbox, plural: string, name: string): Promise<T> {
  const custom = sandbox.cluster.kubeConfig().makeApiClient(CustomObjectsApi);
  const namespace = sandbox.namespace;
  const at = { group: 'coffer.dev', version: 'v1alpha1', plural, namespace, name };
  return (await custom.getNamespacedCustomObject(at)) as T;
}

interface Conditioned {
  status?: {
    id?: string;
    lastHandledReconcileAt?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/**
 * Sets `coffer.dev/reconcile-requested-at` on the coffer.dev object `name` of `plural` and waits
 * until the operator handled that request; returns the object then.
 */
async function reconcileNow(sandbox: Sandbox, plural: string, name: string): Promise<Conditioned> {
  const custom = sandbox.cluster.kubeConfig().makeApiClient(CustomObjectsApi);
  const value = `${new Date().toISOString()}-${randomBytes(2).toString('hex')}`;
  const body = { metadata: { annotations: { [ANNOTATION_RECONCILE_REQUESTED_AT]: value } } };
  const at = { group: 'coffer.dev', version: 'v1alpha1', plural, namespace: sandbox.namespace, name };
  await custom.patchNamespacedCustomObject(
    { ...at, body },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  return waitFor(
    async () => {
      const obj = await cofferObject<Conditioned>(sandbox, plural, name);
      return obj.status?.lastHandledReconcileAt === value ? obj : undefined;
    },
    { timeoutMs: 30_000, message: `the requested reconcile of ${plural}/${name} handled` },
  );
}

/** Writes `key` into dev:/app of the demo project through the devserver API, as the admin. */
async function putDemoValue(sandbox: Sandbox, key: string, value: string): Promise<void> {
  const core = sandbox.cluster.kubeConfig().makeApiClient(CoreV1Api);
  const output = await core.readNamespacedSecret({ namespace: sandbox.namespace, name: 'coffer-admin' });
  const token = Buffer.from(output.data?.['token'] ?? '', 'base64').toString('utf8');
  const project = await cofferObject<{ status?: { id?: string } }>(sandbox, 'projects', 'demo');
  const client = createServiceClient({ baseUrl: sandbox.devserver.url, auth: staticToken(token) });
  try {
    await client.secrets.batchUpdate({
      workspaceId: project.status?.id ?? '',
      environment: 'dev',
      secretPath: '/app',
      mode: 'upsert',
      secrets: [{ secretKey: key, secretValue: value }],
    });
  } finally {
    await client.close();
  }
}

/** Command lines of live processes that mention `text`. */
function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(text)) found.push(`${pid}: ${cmdline.slice(0, 120)}`);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

describe('coffer sandbox (in-process)', () => {
  let sandbox: Sandbox;
  let states: ResourceState[];
  let ready: boolean;
  const progress: string[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ log: (line) => progress.push(line), installStdio: 'ignore' });
    ({ ready, states } = await sandbox.waitUntilReady({ timeoutMs: 150_000 }));
  }, 240_000);

  afterAll(async () => {
    await sandbox?.stop();
  }, 60_000);

  it('gets every sample of a kind with a controller Ready and Synced', () => {
    const failing = states
      .filter((s) => !s.blocked && !isSettled(s))
      .map((s) => `${s.kind}/${s.name}: ${s.synced?.reason ?? '-'} ${s.synced?.message ?? ''}`);
    expect(failing).toEqual([]);
    expect(ready).toBe(true);
    // The connection kinds and the Bootstrap always have controllers: never skipped as blocked.
    for (const kind of ['Bootstrap', 'Connection', 'ClusterConnection'])
      expect(states.find((s) => s.kind === kind)).toMatchObject({
        registered: true,
        blocked: false,
        isReady: true,
        isSynced: true,
      });
    // Every kind of the samples is represented: the plan covers the whole kustomization.
    expect(new Set(states.map((s) => s.kind)).size).toBeGreaterThanOrEqual(10);
    expect(progress.join('\n')).toContain('ready at https://127.0.0.1:');
  });

  it('keeps every resource Synced after the Connection demo-ci logged in as the Identity demo-ci', async () => {
    // The signal of the login: the Connection names the identity it authenticated as.
    const identity = await cofferObject<Conditioned>(sandbox, 'identities', 'demo-ci');
    await waitFor(
      async () =>
        (await cofferObject<Conditioned>(sandbox, 'connections', 'demo-ci')).status?.id ===
        identity.status?.id,
      { timeoutMs: 30_000, message: 'the Connection demo-ci to log in as demo-ci' },
    );
    // The identity is now one a Connection authenticates as; the resources that created it and
    // act on it reconcile once more and stay Synced.
    for (const [plural, name] of [
      ['identities', 'demo-ci'],
      ['identityauths', 'demo-ci-kubernetes'],
      ['additionalprivileges', 'demo-ci-dev-write'],
    ] as const) {
      const synced = (await reconcileNow(sandbox, plural, name)).status?.conditions?.find(
        (c) => c.type === 'Synced',
      );
      expect(synced, `${plural}/${name}`).toMatchObject({ status: 'True' });
    }
    const unsettled = (await sandbox.states())
      .filter((s) => !s.blocked && !isSettled(s))
      .map((s) => `${s.kind}/${s.name}: ${s.synced?.reason ?? '-'} ${s.synced?.message ?? ''}`);
    expect(unsettled).toEqual([]);
  }, 90_000);

  it('lets the Bootstrap create the Connection, owned by it, from its output Secret', async () => {
    const custom = sandbox.cluster.kubeConfig().makeApiClient(CustomObjectsApi);
    const connection = (await custom.getNamespacedCustomObject({
      group: 'coffer.dev',
      version: 'v1alpha1',
      plural: 'connections',
      namespace: sandbox.namespace,
      name: 'coffer',
    })) as { metadata: { ownerReferences?: { kind: string; name: string }[] }; spec: { url: string } };
    expect(connection.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Bootstrap', name: 'coffer' }),
    ]);
    expect(connection.spec.url).toBe(sandbox.devserver.url);
    const core = sandbox.cluster.kubeConfig().makeApiClient(CoreV1Api);
    const output = await core.readNamespacedSecret({ namespace: sandbox.namespace, name: 'coffer-admin' });
    expect(Object.keys(output.data ?? {})).toContain('token');
  });

  it('lets the demo-ci ServiceAccount log in as demo-ci through Kubernetes auth, no token stored', async () => {
    const kc = sandbox.cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const namespace = sandbox.namespace;
    const identity = (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'coffer.dev',
      version: 'v1alpha1',
      plural: 'identities',
      namespace,
      name: 'demo-ci',
    })) as { status?: { id?: string } };
    const login = async (name: string) => {
      const request = await core.createNamespacedServiceAccountToken({
        namespace,
        name,
        body: { spec: { audiences: ['coffer'], expirationSeconds: 600 } },
      });
      const res = await fetch(`${sandbox.devserver.url}/api/v1/auth/kubernetes-auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identityId: identity.status?.id, jwt: request.status?.token }),
      });
      // The token's `jti` claim (not secret): the API server reports it as the credential id.
      const payload = (request.status?.token ?? '').split('.')[1] ?? '';
      const { jti } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { jti?: string };
      const body = (await res.json()) as { accessToken?: string; message?: string };
      return { status: res.status, body, jti };
    };
    // A real TokenReview on the sandbox's API server, made with the reviewer token of the samples.
    const ok = await login('demo-ci');
    expect(ok.status, ok.body.message).toBe(200);
    expect(ok.body.accessToken).toEqual(expect.any(String));
    // The service recorded the login with the credential id the review reported: the token's jti.
    expect(sandbox.devserver.kubernetesLogins().at(-1)).toMatchObject({
      identityId: identity.status?.id,
      credentialId: `JTI=${ok.jti}`,
    });
    const other = await login('coffer-token-reviewer');
    expect(other).toMatchObject({ status: 401, body: { message: 'Access denied: K8s name not allowed.' } });
    // No Secret of the namespace holds a credential of demo-ci.
    const secrets = await core.listNamespacedSecret({ namespace });
    expect(secrets.items.map((item) => item.metadata?.name)).not.toContain('demo-ci-token');
  });

  it('gets the Connection demo-ci Ready as the Identity demo-ci, and the WorkloadSecret reads through it', async () => {
    const identity = await cofferObject<Conditioned>(sandbox, 'identities', 'demo-ci');
    const connection = await cofferObject<Conditioned & { spec: unknown }>(sandbox, 'connections', 'demo-ci');
    expect(connection.spec).toMatchObject({ auth: { kubernetes: { identityRef: { name: 'demo-ci' } } } });
    expect(connection.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Ready', status: 'True' }),
    );
    // The service accepted a login as demo-ci: the access token's identity is the Identity's id.
    expect(identity.status?.id).toEqual(expect.any(String));
    expect(connection.status?.id).toBe(identity.status?.id);
    const delivery = await cofferObject<{ spec: { connectionRef: unknown } }>(
      sandbox,
      'workloadsecrets',
      'demo-app-env',
    );
    expect(delivery.spec.connectionRef).toEqual({ kind: 'Connection', name: 'demo-ci' });
    // No Secret of the namespace holds a credential of demo-ci: its Identity's output has ids only.
    const core = sandbox.cluster.kubeConfig().makeApiClient(CoreV1Api);
    const secrets = await core.listNamespacedSecret({ namespace: sandbox.namespace });
    const ofDemoCi = secrets.items.filter((item) => item.metadata?.name?.startsWith('demo-ci'));
    expect(ofDemoCi.map((item) => [item.metadata?.name, Object.keys(item.data ?? {}).sort()])).toEqual([
      ['demo-ci-identity', ['identityId', 'organizationId']],
    ]);
  });

  it('delivers the demo config into demo-app-env; a change restarts demo-app exactly once', async () => {
    const kc = sandbox.cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const apps = kc.makeApiClient(AppsV1Api);
    const namespace = sandbox.namespace;
    const keys = async () => {
      const secret = await core.readNamespacedSecret({ namespace, name: 'demo-app-env' });
      return Object.keys(secret.data ?? {}).sort();
    };
    const status = async () =>
      (await cofferObject<{ status?: WorkloadSecretStatus }>(sandbox, 'workloadsecrets', 'demo-app-env'))
        .status ?? {};
    const demoApp = () => apps.readNamespacedDeployment({ namespace, name: 'demo-app' });
    const sampleKeys = [
      'API_KEY',
      'DATABASE_URL',
      ...deliveredLeaseKeys(sandbox),
      'LOG_LEVEL',
      'app.yaml',
    ].sort();
    // Keys only (never values): the SecretBatch sample's keys, the lease's and the templated app.yaml.
    await waitFor(async () => (await keys()).join() === sampleKeys.join(), {
      timeoutMs: 60_000,
      message: 'demo-app-env to hold the keys of dev:/app, the lease and app.yaml',
    });
    // Settled: no restart pending from the samples' own start (the SecretBatch writing late).
    await waitFor(async () => (await status()).pendingRestart === undefined, { timeoutMs: 60_000 });
    const before = await demoApp();
    const restartedBefore = before.spec?.template?.metadata?.annotations?.[RESTARTED_AT];

    await putDemoValue(sandbox, 'WELCOME_MESSAGE', welcome);
    await waitFor(async () => (await keys()).includes('WELCOME_MESSAGE'), {
      timeoutMs: 60_000,
      message: 'the new key in demo-app-env',
    });
    const last = await waitFor(
      async () => {
        const s = await status();
        return s.pendingRestart === undefined && s.lastRestart?.time !== restartedBefore
          ? s.lastRestart
          : undefined;
      },
      { timeoutMs: 60_000, message: 'the restart of demo-app, recorded in status' },
    );
    expect(last.workloads).toEqual(['Deployment/demo-app']);
    const after = await demoApp();
    expect(after.spec?.template?.metadata?.annotations?.[RESTARTED_AT]).toBe(last.time);
    // Exactly once: one pod template change, and none is pending any more.
    expect(after.metadata?.generation).toBe((before.metadata?.generation ?? 0) + 1);
  }, 150_000);

  it('delivers a lease of the DynamicSecret sample: a user of the sandbox PostgreSQL that logs in', async () => {
    // CI installs PostgreSQL (.ci/run): there the PostgreSQL variant must run, never the fallback.
    const inCi = ['true', '1'].includes(process.env['CI'] ?? '');
    if (inCi) expect(postgresInstalled(), 'PostgreSQL installed in CI').toBe(true);
    expect(sandbox.dynamicSecrets?.provider).toBe(postgresInstalled() ? 'sqlDatabase' : 'kubernetes');
    expect(states.find((s) => s.kind === 'DynamicSecret')).toMatchObject({ isReady: true, isSynced: true });
    await expectLeaseDelivered(sandbox);
  }, 90_000);

  it('keeps secret values out of the operator log', async () => {
    const core = sandbox.cluster.kubeConfig().makeApiClient(CoreV1Api);
    const output = await core.readNamespacedSecret({ namespace: sandbox.namespace, name: 'coffer-admin' });
    const token = Buffer.from(output.data?.['token'] ?? '', 'base64').toString('utf8');
    const log = readFileSync(sandbox.operatorLogPath, 'utf8');
    expect(log.length).toBeGreaterThan(0);
    expect(token.length).toBeGreaterThan(10);
    const lease = await secretData(sandbox, 'demo-app-env');
    const backend = sandbox.dynamicSecrets;
    const dbPassword = backend?.provider === 'sqlDatabase' ? backend.postgres.password : token;
    const leased = lease['DB_PASSWORD'] ?? lease['TOKEN'] ?? '';
    expect(leased.length).toBeGreaterThan(10);
    for (const value of [
      token,
      'sample-only@db.demo.svc',
      'sample-api-key-not-real',
      welcome,
      dbPassword,
      leased,
    ])
      expect(log.includes(value), 'a secret value is in the operator log').toBe(false);
  });

  it('runs kube-controller-manager: deleting an owner garbage-collects the Secret it owns', async () => {
    expect(progress.join('\n')).toMatch(/kube-controller-manager v\d+\.\d+\.\d+: ready at/);
    const core = sandbox.cluster.kubeConfig().makeApiClient(CoreV1Api);
    const namespace = sandbox.namespace;
    const owner = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'gc-owner' }, data: { note: 'owner' } },
    });
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: {
          name: 'gc-owned',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'gc-owner', uid: owner.metadata?.uid ?? '' },
          ],
        },
        stringData: { note: 'owned' },
      },
    });
    await core.deleteNamespacedConfigMap({ namespace, name: 'gc-owner' });
    await waitFor(
      async () => {
        try {
          await core.readNamespacedSecret({ namespace, name: 'gc-owned' });
          return false;
        } catch (error) {
          return statusCodeOf(error) === 404;
        }
      },
      { timeoutMs: 30_000, message: 'the garbage collector to delete the owned Secret' },
    );
  }, 45_000);

  it('stops every process and removes its directories', async () => {
    const dir = sandbox.cluster.dir ?? '';
    const dataDir = sandbox.operatorLogPath.replace(/\/operator\.log$/, '');
    const url = sandbox.devserver.url;
    const backend = sandbox.dynamicSecrets;
    const dbDir = backend?.provider === 'sqlDatabase' ? backend.postgres.dir : '';
    expect(dir).not.toBe('');
    expect(processesMentioning(dir).length).toBeGreaterThanOrEqual(2);
    expect(await answers(`${url}/api/status`)).toBe(true);
    if (dbDir) {
      // The sandbox's PostgreSQL keeps its data under the sandbox's data directory.
      expect(dbDir.startsWith(`${dataDir}/`)).toBe(true);
      expect(processesMentioning(dbDir).length).toBeGreaterThanOrEqual(1);
    }

    await sandbox.stop();

    expect(processesMentioning(dir)).toEqual([]);
    if (dbDir) expect(processesMentioning(dbDir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
    expect(await answers(`${url}/api/status`)).toBe(false);
    // A second stop (afterAll) is harmless.
    await sandbox.stop();
  }, 60_000);
});
