/**
 * Two operator replicas on the control plane's node, installed with the chart (src/sandbox/node-install/),
 * and the operator's kubelet-mounted ServiceAccount token, checked as a user would with kubectl:
 *
 * - both operator Pods Ready (the readiness probe does not depend on leadership), one named by the
 *   chart's Lease (values `leaderElection.id`); deleting the leader Pod hands the Lease to a live
 *   Pod within the Lease's duration (the leader releases it on SIGTERM, so the standby or the
 *   Deployment's replacement Pod, whichever asks first, takes it), which then reconciles a new
 *   resource to Ready and writes nothing twice: no service object is created or changed again, no
 *   resource gets another id, no Kubernetes object Coffer manages is recreated;
 * - a Connection in the operator's namespace logging in with the projected token
 *   (`serviceAccountToken.projected`, 600 s, the kubelet's minimum) as an identity whose Kubernetes
 *   auth allows the operator's ServiceAccount gets Ready; the kubelet rotates the token file of the
 *   Pod that took over, the one that logs in (seen as a change of its sha256 on the host, never
 *   printed); once the API
 *   server no longer accepts the token from before the rotation, an edited Connection and a new one
 *   log in again and get Ready, so the service's TokenReview accepted the rotated token.
 *
 * The rotation (~480 s after the new leader started, up to a minute later as the kubelet syncs the
 * volume) is awaited after the failover steps; the file takes about 13 minutes.
 */
import { readFileSync } from 'node:fs';
import {
  AppsV1Api,
  AuthenticationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKind, group, version } from '../../src/api/v1alpha1/index.ts';
import type { StatsSnapshot } from '../../src/devserver/server.ts';
import { defaultRelease, operatorDeployment } from '../../src/sandbox/node-install/install.ts';
import { startNodeSandbox, type NodeSandbox } from '../../src/sandbox/node-install/start.ts';
import { nodeLockWaitMs, reserveNodeForFile } from '../support/control-plane.ts';
import { rolledOut } from '../../src/sandbox/node-install/workloads.ts';
import {
  conditionTrue,
  leaseOf,
  operatorPods,
  podReady,
  projectedFileOnHost,
  readCoffer,
  tokenFacts,
  type CofferObject,
  type TokenFacts,
} from '../support/node-operator.ts';
import { waitFor } from '../support/wait-for.ts';

const release = defaultRelease;
const lease = { name: 'coffer-leader-e2e', namespace: release.namespace };
const tokenSeconds = 600;
const values = {
  replicaCount: 2,
  leaderElection: { id: lease.name },
  serviceAccountToken: { projected: { expirationSeconds: tokenSeconds } },
};
/** The API server accepts a token until about a minute past its `exp` (its validation leeway). */
const leewayMs = 60_000;

type Snapshot = Map<string, { uid: string; id: string }>;

describe('two operator replicas on a node: failover, and the rotated projected token', () => {
  let sandbox: NodeSandbox;
  let releaseNode: (() => void) | undefined;
  let kc: KubeConfig;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;
  let leader: V1Pod;
  /** The uids of the operator Pods the release started with. */
  let firstPods: string[] = [];
  /** The Pod holding the Lease after the failover. */
  let newLeader: V1Pod;
  let identityId = '';
  let before: { writes: StatsSnapshot['writes']; objects: Snapshot; secrets: Map<string, string> };
  /** The new leader's token file and its facts before the rotation. */
  let firstToken: TokenFacts;
  let firstTokenFile = '';
  /** That token, kept only to ask the API server whether it still accepts it; never printed. */
  let firstTokenValue = '';

  const create = async (kind: string, namespace: string, obj: Record<string, unknown>) => {
    const plural = findKind(kind)?.plural ?? '';
    const body = { apiVersion: `${group}/${version}`, kind, ...obj };
    await custom.createNamespacedCustomObject({ group, version, plural, namespace, body });
  };
  const waitReady = (kind: string, where: { namespace: string; name: string }, timeoutMs = 90_000) =>
    waitFor(
      async () => {
        const obj = await readCoffer(kc, kind, where);
        return conditionTrue(obj, 'Ready') && conditionTrue(obj, 'Synced') ? obj : undefined;
      },
      {
        timeoutMs,
        intervalMs: 500,
        message: `${kind} ${where.namespace}/${where.name} to be Ready and Synced`,
      },
    );
  const tokenConnection = (name: string, projected: Record<string, unknown> = {}) => ({
    metadata: { name },
    spec: {
      url: sandbox.devserver.url,
      auth: { kubernetes: { identityId, serviceAccountToken: { projected } } },
    },
  });

  /** Whether the API server authenticates `token` for the audience coffer (a TokenReview). */
  async function acceptedByApiServer(token: string): Promise<boolean> {
    try {
      const authn = kc.makeApiClient(AuthenticationV1Api);
      const review = await authn.createTokenReview({ body: { spec: { token, audiences: ['coffer'] } } });
      return review.status?.authenticated === true;
    } catch {
      // The request (and so the token) is never part of the error.
      throw new Error('cannot create a TokenReview');
    }
  }

  /** When and how the service last saw the identity log in (its `GET /api/v1/identities/{id}`, as the admin). */
  async function lastLogin(): Promise<{ time: string; method: string }> {
    const secret = await core.readNamespacedSecret({ namespace: sandbox.namespace, name: 'coffer-admin' });
    const token = Buffer.from(secret.data?.['token'] ?? '', 'base64').toString('utf8');
    const reply = await fetch(`${sandbox.devserver.url}/api/v1/identities/${identityId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(reply.status).toBe(200);
    const { identity } = (await reply.json()) as {
      identity: { lastLoginTime?: string | null; lastLoginAuthMethod?: string | null };
    };
    return { time: identity.lastLoginTime ?? '', method: identity.lastLoginAuthMethod ?? '' };
  }

  /** uid and service id of every resource of the samples and of this file, by kind/namespace/name. */
  async function snapshotObjects(): Promise<Snapshot> {
    const snapshot: Snapshot = new Map();
    const mine = [
      { kind: 'Identity', namespace: sandbox.namespace, name: 'coffer-operator' },
      { kind: 'IdentityAuth', namespace: sandbox.namespace, name: 'coffer-operator-kubernetes' },
      { kind: 'Connection', namespace: release.namespace, name: 'operator-token' },
    ];
    for (const r of [...sandbox.plan.resources, ...mine]) {
      if (!r.namespace) continue;
      const obj: CofferObject = await readCoffer(kc, r.kind, { namespace: r.namespace, name: r.name });
      snapshot.set(`${r.kind}/${r.namespace}/${r.name}`, {
        uid: obj.metadata.uid ?? '',
        id: obj.metadata.annotations?.['coffer.dev/external-id'] ?? obj.status?.id ?? '',
      });
    }
    return snapshot;
  }

  /** uid of every Secret in the samples' namespace (the delivered ones among them), by name. */
  async function secretUids(): Promise<Map<string, string>> {
    const secrets = await core.listNamespacedSecret({ namespace: sandbox.namespace });
    return new Map(secrets.items.map((s) => [s.metadata?.name ?? '', s.metadata?.uid ?? '']));
  }

  beforeAll(async () => {
    releaseNode = await reserveNodeForFile();
    sandbox = await startNodeSandbox({ log: (line) => console.log(line), values });
    kc = sandbox.cluster.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    custom = kc.makeApiClient(CustomObjectsApi);
  }, nodeLockWaitMs + 300_000);

  afterAll(async () => {
    await sandbox?.stop();
    releaseNode?.();
  }, 90_000);

  it('runs two operator Pods, both Ready, and the Lease names one of them', async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    const deployment = await operatorDeployment(apps, release);
    expect(deployment.spec?.replicas).toBe(2);
    expect(rolledOut(deployment)).toBe(true);
    const pods = await operatorPods(core, release);
    expect(pods.map(podReady)).toEqual([true, true]);
    const holder = await waitFor(async () => (await leaseOf(kc, lease)).holder, {
      timeoutMs: 30_000,
      message: `the Lease ${lease.name} to have a holder`,
    });
    const holding = pods.filter((pod) => holder.includes(pod.metadata?.name ?? '-'));
    expect(holding).toHaveLength(1);
    leader = holding[0] as V1Pod;
    firstPods = pods.map((pod) => pod.metadata?.uid ?? '');
  });

  it('gets the samples and a Connection with the projected token Ready through the leader', async () => {
    const { ready } = await sandbox.waitUntilReady({ timeoutMs: 120_000 });
    expect(ready).toBe(true);
    const serviceAccount = leader.spec?.serviceAccountName ?? '';
    await create('Identity', sandbox.namespace, {
      metadata: { name: 'coffer-operator' },
      spec: { connectionRef: { name: 'coffer' }, name: 'coffer-operator', role: 'no-access' },
    });
    await create('IdentityAuth', sandbox.namespace, {
      metadata: { name: 'coffer-operator-kubernetes' },
      spec: {
        connectionRef: { name: 'coffer' },
        identityRef: { name: 'coffer-operator' },
        method: 'kubernetes',
        kubernetes: {
          allowedNamespaces: [release.namespace],
          allowedNames: [serviceAccount],
          allowedAudience: 'coffer',
          tokenReviewerJwtSecretRef: { name: 'coffer-token-reviewer' },
        },
      },
    });
    const where = { namespace: sandbox.namespace };
    identityId = (await waitReady('Identity', { ...where, name: 'coffer-operator' })).status?.id ?? '';
    expect(identityId).not.toBe('');
    await waitReady('IdentityAuth', { ...where, name: 'coffer-operator-kubernetes' });
    await create('Connection', release.namespace, tokenConnection('operator-token'));
    await waitReady('Connection', { namespace: release.namespace, name: 'operator-token' });
  }, 240_000);

  it('hands the Lease to a live Pod within its duration when the leader Pod is deleted', async () => {
    before = {
      writes: sandbox.devserver.stats.snapshot().writes,
      objects: await snapshotObjects(),
      secrets: await secretUids(),
    };
    const { holder, durationSeconds } = await leaseOf(kc, lease);
    const deletedAt = Date.now();
    await core.deleteNamespacedPod({ namespace: release.namespace, name: leader.metadata?.name ?? '' });
    const next = await waitFor(
      async () => {
        const now = (await leaseOf(kc, lease)).holder;
        return now !== '' && now !== holder ? now : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100, message: 'the Lease to name another holder' },
    );
    const tookMs = Date.now() - deletedAt;
    expect(tookMs).toBeLessThanOrEqual(durationSeconds * 1000);
    const holding = (await operatorPods(core, release)).filter((pod) =>
      next.includes(pod.metadata?.name ?? '-'),
    );
    expect(holding).toHaveLength(1);
    newLeader = holding[0] as V1Pod;
    expect(newLeader.metadata?.uid).not.toBe(leader.metadata?.uid);
    const which = firstPods.includes(newLeader.metadata?.uid ?? '') ? 'standby' : 'replacement';
    console.log(
      `the Lease went to the ${which} Pod ${newLeader.metadata?.name} ${tookMs} ms after the delete`,
    );
    firstTokenFile = projectedFileOnHost(sandbox.plane.node?.dir ?? '', newLeader, 'coffer-token', 'token');
    firstToken = tokenFacts(firstTokenFile);
    firstTokenValue = readFileSync(firstTokenFile, 'utf8').trim();
    expect(firstToken.expiresAt - firstToken.issuedAt).toBe(tokenSeconds);
    expect(firstToken.audiences).toEqual(['coffer']);
  }, 150_000);

  it('reconciles a new resource to Ready through the new leader', async () => {
    await create('Project', sandbox.namespace, {
      metadata: { name: 'after-failover' },
      spec: { connectionRef: { name: 'coffer' }, name: 'After failover', slug: 'after-failover' },
    });
    const project = await waitReady('Project', { namespace: sandbox.namespace, name: 'after-failover' });
    expect(project.status?.id).toBeTruthy();
    const ready = await waitFor(
      async () => (await operatorPods(core, release)).filter(podReady).length === 2,
      {
        timeoutMs: 120_000,
        intervalMs: 500,
        message: 'the replacement operator Pod to be Ready',
      },
    );
    expect(ready).toBe(true);
    expect((await leaseOf(kc, lease)).holder).toContain(newLeader.metadata?.name);
  }, 150_000);

  it('sees the kubelet rotate the projected token of the Pod that took over', async () => {
    const rotated = await waitFor(
      () => {
        const now = tokenFacts(firstTokenFile);
        return now.sha256 !== firstToken.sha256 ? now : undefined;
      },
      {
        timeoutMs: Math.max(60_000, firstToken.expiresAt * 1000 - Date.now()),
        intervalMs: 1_000,
        message: 'the kubelet to rotate the projected token before it expires',
      },
    );
    expect(rotated.issuedAt).toBeGreaterThan(firstToken.issuedAt);
    expect(rotated.issuedAt).toBeLessThan(firstToken.expiresAt);
    expect(rotated.expiresAt - rotated.issuedAt).toBe(tokenSeconds);
    expect(rotated.audiences).toEqual(['coffer']);
  }, 660_000);

  it('logs in again with the rotated token once the API server refuses the old one', async () => {
    // The API server accepts the rotated token (the control) and, past its expiry, not the old one.
    expect(await acceptedByApiServer(readFileSync(firstTokenFile, 'utf8').trim())).toBe(true);
    await waitFor(async () => !(await acceptedByApiServer(firstTokenValue)), {
      timeoutMs: Math.max(60_000, firstToken.expiresAt * 1000 + leewayMs - Date.now() + 60_000),
      intervalMs: 1_000,
      message: 'the API server to refuse the token from before the rotation',
    });
    const refusedAt = new Date();
    const where = { namespace: release.namespace, name: 'operator-token' };
    const edited = await readCoffer(kc, 'Connection', where);
    await custom.patchNamespacedCustomObject(
      { group, version, plural: 'connections', ...where, body: { spec: { requestsPerMinute: 300 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const after = await waitReady('Connection', where);
    expect(after.metadata.generation).toBe((edited.metadata.generation ?? 0) + 1);
    await create('Connection', release.namespace, tokenConnection('operator-token-rotated'));
    await waitReady('Connection', { namespace: release.namespace, name: 'operator-token-rotated' });
    // The service recorded a Kubernetes-auth login of the identity after the old token was refused:
    // its TokenReview accepted a token issued by the rotation.
    const login = await lastLogin();
    expect(login.method).toBe('kubernetes-auth');
    expect(new Date(login.time).getTime()).toBeGreaterThanOrEqual(refusedAt.getTime());
    // Those logins were the new leader's, with the token file watched above.
    expect((await leaseOf(kc, lease)).holder).toContain(newLeader.metadata?.name);
  }, 300_000);

  it('wrote nothing twice: no service write but the new Project, no new id, nothing recreated', async () => {
    const writes = sandbox.devserver.stats.snapshot().writes;
    const delta = Object.fromEntries(
      Object.entries(writes.byRoute)
        .map(([route, count]) => [route, count - (before.writes.byRoute[route] ?? 0)] as const)
        .filter(([, count]) => count !== 0),
    );
    expect(delta).toEqual({ 'POST /api/v2/workspace': 1 });
    expect(await snapshotObjects()).toEqual(before.objects);
    const secrets = await secretUids();
    for (const [name, uid] of before.secrets) expect(secrets.get(name), name).toBe(uid);
  });
});
