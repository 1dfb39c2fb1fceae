/**
 * Coffer as users run it, on the control plane's node (src/sandbox/node-install/): the operator
 * image built from the Dockerfile and imported into the node's containerd, `helm install` of
 * charts/coffer with it (two replicas, the operator's projected ServiceAccount token of 600 s, the
 * kubelet's minimum), the samples applied against a devserver on the node's address. Each step
 * asserts what a user would check with kubectl.
 *
 * The kubelet rotates a projected token only after 80% of its lifetime, so the file is ordered
 * around that wait: the leader Pod is deleted early (the Lease goes to a live Pod within its
 * duration, which reconciles a new resource to Ready and writes nothing twice), and the clock of
 * the new leader's token starts. While it runs, every check that leaves the leader alone: the
 * image imported, never pulled; the operator Pods Ready as the non-root user on a read-only root
 * with no capabilities; only the release's ServiceAccount and RBAC; every sample Ready and the demo
 * Deployment's Pod running; a WorkloadSecret change replacing that Pod exactly once. Then the
 * rotation: the kubelet rewrites the new leader's token file (seen as a change of its sha256 on
 * the host, never printed), and an edited Connection and a new one log in again; the devserver
 * recorded those logins with the credential id the API server's TokenReview reported, and it is
 * the rotated token's `jti`, not the old one's. Last `helm upgrade` (the operator rolls, everything
 * stays Ready, nothing restarts), `helm uninstall` (none of the release's objects left, the CRDs
 * kept, the operator's Lease left as the README says) and the machine clean once the sandbox
 * stops.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allKinds, group, version } from '../../src/api/v1alpha1/index.ts';
import type { StatsSnapshot } from '../../src/devserver/server.ts';
import { chartValues, defaultRelease, operatorDeployment } from '../../src/sandbox/node-install/install.ts';
import { startNodeSandbox, type NodeSandbox } from '../../src/sandbox/node-install/start.ts';
import { rolledOut, waitForRollout } from '../../src/sandbox/node-install/workloads.ts';
import { allSettled } from '../../src/sandbox/status.ts';
import { nodeLockWaitMs, reserveNodeForFile } from '../support/control-plane.ts';
import { ctr, hostPid, livePods, processFacts } from '../support/node-host.ts';
import {
  leaseOf,
  operatorPods,
  podReady,
  projectedFileOnHost,
  readCoffer,
  tokenFacts,
  type TokenFacts,
} from '../support/node-operator.ts';
import {
  acceptedByApiServer,
  bindingsOf,
  createCoffer,
  createKubernetesIdentity,
  createTokenConnection,
  lastLogin,
  releaseObjectsLeft,
  secretUids,
  snapshotObjects,
  waitCofferReady,
  writesSince,
  type ObjectSnapshot,
  type ResourceRef,
} from '../support/node-release.ts';
import { waitFor } from '../support/wait-for.ts';

const execFileAsync = promisify(execFile);
const release = defaultRelease;
const lease = { name: 'coffer-leader-e2e', namespace: release.namespace };
const tokenSeconds = 600;
/** Two replicas with the projected token; a readiness probe every second (the file's budget). */
const values = {
  replicaCount: 2,
  leaderElection: { id: lease.name },
  serviceAccountToken: { projected: { expirationSeconds: tokenSeconds } },
  readinessProbe: { initialDelaySeconds: 1, periodSeconds: 1 },
};

/** The resources this file creates before the failover (the samples live in `default`). */
const mine: ResourceRef[] = [
  { kind: 'Identity', namespace: 'default', name: 'coffer-operator' },
  { kind: 'IdentityAuth', namespace: 'default', name: 'coffer-operator-kubernetes' },
  { kind: 'Connection', namespace: release.namespace, name: 'operator-token' },
];

describe('the chart on a node: failover, the checks a user makes, the rotated token, upgrade and uninstall', () => {
  let sandbox: NodeSandbox;
  let releaseNode: (() => void) | undefined;
  let kc: KubeConfig;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let custom: CustomObjectsApi;
  let nodeDir = '';
  let leader: V1Pod;
  /** The uids of the operator Pods the release started with. */
  let firstPods: string[] = [];
  /** The Pod holding the Lease after the failover. */
  let newLeader: V1Pod;
  let identityId = '';
  let before: { writes: StatsSnapshot['writes']; objects: ObjectSnapshot; secrets: Map<string, string> };
  /** The new leader's token file and its facts (never the token) before the rotation. */
  let firstToken: TokenFacts;
  let firstTokenFile = '';
  let rotated: TokenFacts;

  /** Creates a Connection `name` logging in with the operator's projected token, and waits for it to be Ready. */
  const tokenConnectionReady = (name: string) =>
    createTokenConnection(kc, { name, namespace: release.namespace, url: sandbox.devserver.url, identityId });

  beforeAll(async () => {
    releaseNode = await reserveNodeForFile();
    sandbox = await startNodeSandbox({ log: (line) => console.log(line), values });
    console.log(sandbox.phases.map((phase) => `${phase.name} ${phase.ms} ms`).join(', '));
    kc = sandbox.cluster.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
    custom = kc.makeApiClient(CustomObjectsApi);
    nodeDir = sandbox.plane.node?.dir ?? '';
  }, nodeLockWaitMs + 300_000);

  afterAll(async () => {
    await sandbox?.stop();
    releaseNode?.();
  }, 90_000);

  it('runs two operator Pods, both Ready, and the Lease names one of them', async () => {
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
    const account = { namespace: release.namespace, name: leader.spec?.serviceAccountName ?? '' };
    identityId = await createKubernetesIdentity(kc, sandbox.namespace, account);
    expect(identityId).not.toBe('');
    await tokenConnectionReady('operator-token');
  }, 240_000);

  it('hands the Lease to a live Pod within its duration when the leader Pod is deleted', async () => {
    before = {
      writes: sandbox.devserver.stats.snapshot().writes,
      objects: await snapshotObjects(sandbox, mine),
      secrets: await secretUids(sandbox),
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
    firstTokenFile = projectedFileOnHost(nodeDir, newLeader, 'coffer-token', 'token');
    firstToken = tokenFacts(firstTokenFile);
    expect(firstToken.expiresAt - firstToken.issuedAt).toBe(tokenSeconds);
    expect(firstToken.audiences).toEqual(['coffer']);
  }, 150_000);

  it('reconciles a new resource to Ready through the new leader', async () => {
    await createCoffer(kc, 'Project', sandbox.namespace, {
      metadata: { name: 'after-failover' },
      spec: { connectionRef: { name: 'coffer' }, name: 'After failover', slug: 'after-failover' },
    });
    const project = await waitCofferReady(kc, 'Project', {
      namespace: sandbox.namespace,
      name: 'after-failover',
    });
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

  it('wrote nothing twice: no service write but the new Project, no new id, nothing recreated', async () => {
    const writes = sandbox.devserver.stats.snapshot().writes;
    expect(writesSince(before.writes, writes)).toEqual({ 'POST /api/v2/workspace': 1 });
    expect(await snapshotObjects(sandbox, mine)).toEqual(before.objects);
    const secrets = await secretUids(sandbox);
    for (const [name, uid] of before.secrets) expect(secrets.get(name), name).toBe(uid);
  });

  it('installs the release with the image imported into the node, never pulled', async () => {
    const status = await sandbox.release.status();
    expect(status.info?.status).toBe('deployed');
    const deployment = await operatorDeployment(apps, release);
    const container = deployment.spec?.template.spec?.containers[0];
    expect(container?.image).toBe(sandbox.image.reference);
    expect(container?.imagePullPolicy).toBe('Never');
    const [pod] = await operatorPods(core, release);
    expect(pod?.status?.containerStatuses?.[0]?.image).toBe(sandbox.image.reference);
    // The node's containerd holds the image under that name with the digest the build produced.
    const row = (await ctr(nodeDir, 'images', 'ls'))
      .split('\n')
      .find((line) => line.startsWith(`${sandbox.image.reference} `));
    expect(row?.split(/\s+/)).toContain(sandbox.image.digest);
  });

  it('runs the operator Pods Ready, as the non-root user on a read-only root with no capabilities', async () => {
    const pods = await operatorPods(core, release);
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      const pid = await hostPid(nodeDir, pod.status?.containerStatuses?.[0]?.containerID ?? '');
      expect(processFacts(pid)).toEqual({
        uids: ['65532', '65532', '65532', '65532'],
        effectiveCapabilities: '0000000000000000',
        rootReadOnly: true,
      });
    }
  });

  it('runs the operator with only the ServiceAccount and RBAC of the release', async () => {
    const pods = await operatorPods(core, release);
    const account = pods[0]?.spec?.serviceAccountName ?? '';
    const sa = await core.readNamespacedServiceAccount({ name: account, namespace: release.namespace });
    expect(sa.metadata?.annotations?.['meta.helm.sh/release-name']).toBe(release.name);
    const bindings = await bindingsOf(kc, { name: account, namespace: release.namespace });
    expect(bindings.length).toBeGreaterThan(0);
    const foreign = bindings.filter(
      (b) => b.metadata?.annotations?.['meta.helm.sh/release-name'] !== release.name,
    );
    expect(foreign.map((b) => b.metadata?.name)).toEqual([]);
    // The leader's Lease names one of these Pods: the operator that reconciles.
    const { holder } = await leaseOf(kc, lease);
    expect(pods.filter((pod) => holder.includes(pod.metadata?.name ?? '-'))).toHaveLength(1);
  });

  it('gets every sample Ready through the operator, and the demo Deployment Pod running', async () => {
    const { ready, states } = await sandbox.waitUntilReady({ timeoutMs: 90_000 });
    expect(ready).toBe(true);
    expect(allSettled(states)).toBe(true);
    const demo = await apps.readNamespacedDeployment({ name: 'demo-app', namespace: sandbox.namespace });
    expect(rolledOut(demo)).toBe(true);
    const secret = await core.readNamespacedSecret({ name: 'demo-app-env', namespace: sandbox.namespace });
    expect(Object.keys(secret.data ?? {})).toContain('app.yaml');
    const kubeconfig = ['--kubeconfig', sandbox.cluster.kubeconfigPath];
    const logs = (
      await execFileAsync(sandbox.cluster.kubectl, [
        ...kubeconfig,
        '-n',
        sandbox.namespace,
        'logs',
        'deploy/demo-app',
      ])
    ).stdout;
    expect(logs).toContain('coffer-probe ready');
  }, 100_000);

  it('replaces the demo Deployment Pod exactly once when its WorkloadSecret changes', async () => {
    const where = { name: 'demo-app', namespace: sandbox.namespace };
    const selector = 'app.kubernetes.io/name=demo-app';
    const podUids = async () =>
      (await livePods(core, where.namespace, selector)).map((pod) => pod.metadata?.uid);
    const replicaSets = async () =>
      (await apps.listNamespacedReplicaSet({ namespace: where.namespace, labelSelector: selector })).items;
    const podsBefore = await podUids();
    expect(podsBefore).toHaveLength(1);
    expect(await replicaSets()).toHaveLength(1);
    const generation = (await apps.readNamespacedDeployment(where)).metadata?.generation ?? 0;

    const at = {
      group,
      version,
      plural: 'workloadsecrets',
      namespace: where.namespace,
      name: 'demo-app-env',
    };
    await custom.patchNamespacedCustomObject(
      { ...at, body: { spec: { template: { data: { greeting: 'hello from the node' } } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const changed = await waitFor(
      async () => {
        const secret = await core.readNamespacedSecret({ name: 'demo-app-env', namespace: where.namespace });
        return secret.data?.['greeting'];
      },
      { timeoutMs: 30_000, intervalMs: 250, message: 'the delivered Secret to carry the new key' },
    );
    expect(Buffer.from(changed, 'base64').toString()).toBe('hello from the node');
    await waitFor(
      async () => ((await apps.readNamespacedDeployment(where)).metadata?.generation ?? 0) > generation,
      {
        timeoutMs: 30_000,
        intervalMs: 250,
        message: 'the Deployment to be restarted',
      },
    );
    await waitForRollout(apps, where, 60_000);
    // The operator has settled on the change: the WorkloadSecret is Ready for its new generation.
    await waitFor(async () => allSettled(await sandbox.states()), {
      timeoutMs: 30_000,
      intervalMs: 250,
      message: 'every resource to be Ready and Synced',
    });
    const after = await podUids();
    expect(after).toHaveLength(1);
    expect(after).not.toContain(podsBefore[0]);
    const sets = await replicaSets();
    expect(sets).toHaveLength(2);
    expect(sets.map((set) => set.spec?.replicas ?? 0).sort()).toEqual([0, 1]);
    expect((await apps.readNamespacedDeployment(where)).metadata?.generation).toBe(generation + 1);
  }, 120_000);

  it('sees the kubelet rotate the projected token of the Pod that took over', async () => {
    rotated = await waitFor(
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

  it('logs in again, for an edited and a new Connection, with the rotated token', async () => {
    // The API server accepts the rotated token (the control for the proof below).
    expect(await acceptedByApiServer(kc, readFileSync(firstTokenFile, 'utf8').trim())).toBe(true);
    expect(rotated.id).not.toBe('');
    expect(rotated.id).not.toBe(firstToken.id);
    const rotatedSeenAt = new Date();
    const where = { namespace: release.namespace, name: 'operator-token' };
    const edited = await readCoffer(kc, 'Connection', where);
    const beforeEdit = sandbox.devserver.kubernetesLogins().length;
    await custom.patchNamespacedCustomObject(
      { group, version, plural: 'connections', ...where, body: { spec: { requestsPerMinute: 300 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const after = await waitCofferReady(kc, 'Connection', where);
    expect(after.metadata.generation).toBe((edited.metadata.generation ?? 0) + 1);
    const beforeNew = sandbox.devserver.kubernetesLogins().length;
    await tokenConnectionReady('operator-token-rotated');
    // Each Connection's login: the API server's TokenReview named the rotated token's jti as the
    // credential, and the Pod that took over as the one it was issued for.
    const rotatedLogin = { credentialId: `JTI=${rotated.id}`, podName: newLeader.metadata?.name };
    const logins = (from: number, to?: number) =>
      sandbox.devserver
        .kubernetesLogins()
        .slice(from, to)
        .filter((one) => one.identityId === identityId);
    for (const made of [logins(beforeEdit, beforeNew), logins(beforeNew)]) {
      expect(made.length).toBeGreaterThan(0);
      for (const login of made) expect(login).toMatchObject(rotatedLogin);
    }
    const login = await lastLogin(sandbox, identityId);
    expect(login.status).toBe(200);
    expect(login.method).toBe('kubernetes-auth');
    expect(new Date(login.time).getTime()).toBeGreaterThanOrEqual(rotatedSeenAt.getTime());
    // Those logins were the new leader's, with the token file watched above.
    expect((await leaseOf(kc, lease)).holder).toContain(newLeader.metadata?.name);
  }, 300_000);

  it('rolls the operator on helm upgrade, with every resource staying Ready and nothing restarted', async () => {
    const old = (await operatorPods(core, release)).map((pod) => pod.metadata?.uid);
    const demo = await apps.readNamespacedDeployment({ name: 'demo-app', namespace: sandbox.namespace });
    const demoPods = await livePods(core, sandbox.namespace, 'app.kubernetes.io/name=demo-app');
    await sandbox.release.upgrade(chartValues(sandbox.image, { ...values, operator: { logLevel: 'debug' } }));
    expect((await sandbox.release.status()).version).toBe(2);
    const deployment = await operatorDeployment(apps, release);
    expect(deployment.spec?.template.spec?.containers[0]?.args).toContain('--log-level=debug');
    await waitForRollout(
      apps,
      { name: deployment.metadata?.name ?? '', namespace: release.namespace },
      120_000,
    );
    await waitFor(async () => (await operatorPods(core, release)).length === 2, {
      timeoutMs: 60_000,
      intervalMs: 250,
      message: 'the old operator Pods to be gone',
    });
    const current = (await operatorPods(core, release)).map((pod) => pod.metadata?.uid);
    expect(current.filter((uid) => old.includes(uid))).toEqual([]);
    const { ready } = await sandbox.waitUntilReady({ timeoutMs: 60_000 });
    expect(ready).toBe(true);
    const demoAfter = await apps.readNamespacedDeployment({ name: 'demo-app', namespace: sandbox.namespace });
    expect(demoAfter.metadata?.generation).toBe(demo.metadata?.generation);
    const podsAfter = await livePods(core, sandbox.namespace, 'app.kubernetes.io/name=demo-app');
    expect(podsAfter.map((pod) => pod.metadata?.uid)).toEqual(demoPods.map((pod) => pod.metadata?.uid));
  }, 180_000);

  it('leaves none of the release objects on helm uninstall, keeps the CRDs, and leaves the Lease', async () => {
    await sandbox.release.uninstall();
    await waitFor(
      async () => (await core.listNamespacedPod({ namespace: release.namespace })).items.length === 0,
      {
        timeoutMs: 60_000,
        intervalMs: 250,
        message: 'the operator Pods to be gone',
      },
    );
    const left = await releaseObjectsLeft(kc, release);
    expect(left).toEqual([]);
    const crds = (await kc.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition()).items
      .map((crd) => crd.spec.group)
      .filter((crdGroup) => crdGroup === group);
    expect(crds).toHaveLength(allKinds.length);
    // The README: the operator created the Lease (it is no object of the release), so the
    // uninstall leaves it. Its holder is not asserted: helm deletes the release's RBAC and
    // ServiceAccount while the leader stops, so whether it could still release the Lease is a race.
    const leftLease = await kc.makeApiClient(CoordinationV1Api).readNamespacedLease(lease);
    expect(leftLease.metadata?.name).toBe(lease.name);
    expect(leftLease.metadata?.annotations?.['meta.helm.sh/release-name']).toBeUndefined();
  }, 90_000);

  it('leaves the machine clean when stopped', async () => {
    await sandbox.stop();
    expect(existsSync(sandbox.plane.dir)).toBe(false);
    const { stdout } = await execFileAsync('ip', ['-j', 'link', 'show']);
    expect((JSON.parse(stdout) as { ifname: string }[]).map((link) => link.ifname)).not.toContain('coffer0');
  }, 60_000);
});
