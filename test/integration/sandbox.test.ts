/**
 * `coffer sandbox` without its terminal: `startSandbox` starts its own control plane, CRDs,
 * devserver, Bootstrap, operator and the samples; every sample of a kind this build runs a
 * controller for gets Ready, the Bootstrap's Connection is created, the demo-ci ServiceAccount
 * logs in as demo-ci through Kubernetes auth (no stored token), the operator log holds no
 * sample secret, kube-controller-manager garbage-collects owned objects, and `stop()` leaves no
 * process, port or directory behind.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusCodeOf } from '../../src/sandbox/control-plane/cluster.ts';
import type { Sandbox } from '../../src/sandbox/sandbox.ts';
import { startSandbox } from '../../src/sandbox/start.ts';
import type { ResourceState } from '../../src/sandbox/status.ts';
import { waitFor } from '../support/wait-for.ts';

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

  it('gets every sample of a kind with a controller Ready', () => {
    const failing = states
      .filter((s) => !s.blocked && !s.isReady)
      .map((s) => `${s.kind}/${s.name}: ${s.synced?.reason ?? '-'} ${s.synced?.message ?? ''}`);
    expect(failing).toEqual([]);
    expect(ready).toBe(true);
    // The connection kinds and the Bootstrap always have controllers: never skipped as blocked.
    for (const kind of ['Bootstrap', 'Connection', 'ClusterConnection'])
      expect(states.find((s) => s.kind === kind)).toMatchObject({
        registered: true,
        blocked: false,
        isReady: true,
      });
    // Every kind of the samples is represented: the plan covers the whole kustomization.
    expect(new Set(states.map((s) => s.kind)).size).toBeGreaterThanOrEqual(10);
    expect(progress.join('\n')).toContain('ready at https://127.0.0.1:');
  });

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
      return { status: res.status, body: (await res.json()) as { accessToken?: string; message?: string } };
    };
    // A real TokenReview on the sandbox's API server, made with the reviewer token of the samples.
    const ok = await login('demo-ci');
    expect(ok.status, ok.body.message).toBe(200);
    expect(ok.body.accessToken).toEqual(expect.any(String));
    const other = await login('coffer-token-reviewer');
    expect(other).toMatchObject({ status: 401, body: { message: 'Access denied: K8s name not allowed.' } });
    // No Secret of the namespace holds a credential of demo-ci.
    const secrets = await core.listNamespacedSecret({ namespace });
    expect(secrets.items.map((item) => item.metadata?.name)).not.toContain('demo-ci-token');
  });

  it('keeps secret values out of the operator log', async () => {
    const core = sandbox.cluster.kubeConfig().makeApiClient(CoreV1Api);
    const output = await core.readNamespacedSecret({ namespace: sandbox.namespace, name: 'coffer-admin' });
    const token = Buffer.from(output.data?.['token'] ?? '', 'base64').toString('utf8');
    const log = readFileSync(sandbox.operatorLogPath, 'utf8');
    expect(log.length).toBeGreaterThan(0);
    expect(token.length).toBeGreaterThan(10);
    for (const value of [token, 'sample-only@db.demo.svc', 'sample-api-key-not-real'])
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
    expect(dir).not.toBe('');
    expect(processesMentioning(dir).length).toBeGreaterThanOrEqual(2);
    expect(await answers(`${url}/api/status`)).toBe(true);

    await sandbox.stop();

    expect(processesMentioning(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
    expect(await answers(`${url}/api/status`)).toBe(false);
    // A second stop (afterAll) is harmless.
    await sandbox.stop();
  }, 60_000);
});
