/**
 * Coffer as users run it, on the control plane's node (src/sandbox/node-install/): the operator
 * image built from the Dockerfile and imported into the node's containerd, `helm install` of
 * charts/coffer with it (two replicas, the operator's projected ServiceAccount token of 600 s, the
 * kubelet's minimum), the samples applied against a devserver on the node's address. Each step
 * asserts what a user would check with kubectl. One node runs per machine, so the checks of the
 * node itself run here too, on the same node.
 *
 * First a node killed with SIGKILL (test/support/node-child.ts, while the image builds): the
 * node of this file sweeps what it left when it starts. The kubelet rotates a projected token only
 * after 80% of its lifetime, so the file is ordered around that wait: the leader Pod is deleted
 * early (the Lease goes to a live Pod within its duration, which reconciles a new resource to
 * Ready and writes nothing twice), and the clock of the new leader's token starts. While it runs,
 * every check that leaves the leader alone (test/support/chart-node-checks.ts: the image imported,
 * never pulled; the operator Pods non-root, read-only, without capabilities; only the release's
 * RBAC; every sample Ready; a WorkloadSecret change replacing the demo Pod exactly once) and the
 * node's own (test/support/node-checks.ts: Ready; a second node refused; a Pod from a local image
 * with logs, exec and the `kubernetes` Service; egress outside the pod network dropped). Then the
 * rotation: the kubelet rewrites the new leader's token file (seen as a change of its sha256 on
 * the host, never printed), and an edited Connection and a new one log in again; the devserver
 * recorded those logins with the credential id the API server's TokenReview reported, and it is
 * the rotated token's `jti`, not the old one's. Then `helm upgrade` (the operator rolls,
 * everything stays Ready, nothing restarts), `helm uninstall` (none of the release's objects
 * left, the CRDs kept, the operator's Lease left as the README says). Last the machine: once the
 * sandbox stops, no process, mount, network namespace, bridge, veth, iptables chain, kubepods
 * cgroup or changed sysctl is left; and the same after Ctrl-C of `npm run sandbox -- --node` as
 * the README runs it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { allKinds, group, version } from '../../src/api/v1alpha1/index.ts';
import type { StatsSnapshot } from '../../src/devserver/server.ts';
import { buildOperatorImage, type OperatorImage } from '../../src/sandbox/image/image.ts';
import { nodeStateDir } from '../../src/sandbox/control-plane/node/host.ts';
import { chartValues, defaultRelease, operatorDeployment } from '../../src/sandbox/node-install/install.ts';
import { startNodeSandbox, type NodeSandbox } from '../../src/sandbox/node-install/start.ts';
import { rolledOut, waitForRollout } from '../../src/sandbox/node-install/workloads.ts';
import { chartNodeChecks, type ChartOnNode } from '../support/chart-node-checks.ts';
import { nodeLockWaitMs, reserveNodeForFile } from '../support/control-plane.ts';
import { livePods } from '../support/node-host.ts';
import { killedNode, nodeChecks, sandboxOnNode } from '../support/node-checks.ts';
import { expectNothingLeft, listLinks, recordMachine, type MachineState } from '../support/node-machine.ts';
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
  let custom: CustomObjectsApi;
  let apps: AppsV1Api;
  const on = { release, lease } as ChartOnNode;
  /** The machine as it is once this file holds the node (another file's node may run before). */
  let machine: MachineState;
  /** The operator image, built while the killed node starts. */
  let building: Promise<OperatorImage>;
  const imageDir = mkdtempSync(join(tmpdir(), 'coffer-test-image-'));
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
    machine = recordMachine();
    building = buildOperatorImage({ archive: join(imageDir, 'operator-image.oci.tar') });
    building.catch(() => undefined);
  }, nodeLockWaitMs + 60_000);

  afterAll(async () => {
    await sandbox?.stop();
    await building?.catch(() => undefined);
    rmSync(imageDir, { recursive: true, force: true });
    releaseNode?.();
  }, 90_000);

  it('sweeps what a node killed with SIGKILL left, when the next node starts', async () => {
    const started = Date.now();
    const killedDir = await killedNode();
    const killedMs = Date.now() - started;
    // The killed control plane's own files (etcd data, certificates) are not the node's to sweep.
    onTestFinished(() => rmSync(killedDir, { recursive: true, force: true }));
    // Left behind: the state file, the container's shim, the bridge.
    expect(existsSync(join(nodeStateDir, 'state.json'))).toBe(true);
    expect((await listLinks()).some((link) => link.ifname === 'coffer0')).toBe(true);

    const lines: string[] = [];
    const log = (line: string) => {
      lines.push(line);
      console.log(line);
    };
    const image = await building;
    console.log(
      `node killed with SIGKILL after ${killedMs} ms, image ready after ${Date.now() - started} ms`,
    );
    sandbox = await startNodeSandbox({ log, values, image });
    console.log(sandbox.phases.map((phase) => `${phase.name} ${phase.ms} ms`).join(', '));
    expect(lines.join('\n')).toContain(`sweeping what a previous node (${killedDir}/node) left`);
    expect(existsSync(join(killedDir, 'node'))).toBe(false);
    kc = sandbox.cluster.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
    custom = kc.makeApiClient(CustomObjectsApi);
    Object.assign(on, { sandbox, kc, core, apps, custom, nodeDir: sandbox.plane.node?.dir ?? '' });
  }, 420_000);

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
    firstTokenFile = projectedFileOnHost(on.nodeDir, newLeader, 'coffer-token', 'token');
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

  chartNodeChecks(on);

  nodeChecks(() => on.sandbox.plane);

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

  it('leaves nothing behind on the machine when stopped', async () => {
    expect(sandbox.plane.node?.dir.startsWith(sandbox.plane.dir)).toBe(true);
    await sandbox.stop();
    await expectNothingLeft(sandbox.plane.dir, machine);
  }, 60_000);

  it('stops `npm run sandbox -- --node` on Ctrl-C, leaving nothing behind', async () => {
    const run = sandboxOnNode();
    onTestFinished(() => {
      try {
        process.kill(run.group, 'SIGKILL');
      } catch {
        // The group is gone.
      }
    });
    await waitFor(() => run.output().includes('Running; press Ctrl-C to stop and clean up.'), {
      timeoutMs: 360_000,
      intervalMs: 250,
      message: 'the sandbox to be ready',
    });
    expect(run.output()).toContain('All ');
    const dir = dirname(/^Kubeconfig: (\S+)$/m.exec(run.output())?.[1] ?? '');
    expect(dir).toMatch(/coffer-sandbox-/);
    process.kill(run.group, 'SIGINT');
    await run.closed;
    expect(() => process.kill(run.group, 0)).toThrow(/ESRCH/);
    expect(run.output()).toContain('SIGINT: stopping the sandbox');
    expect(run.output()).toContain(
      '[sandbox] stopped operator, devserver, PostgreSQL, control plane and node; temporary files removed',
    );
    await expectNothingLeft(dir, machine);
  }, 480_000);
});
