/**
 * scripts/control-plane/install.sh with a fake `go` and a fake package manager
 * (test/support/fake-go.ts) and a cache whose Kubernetes binaries are stubs, so nothing real is
 * built or installed: two runs at once against one cache both succeed, the second waiting for the
 * first and reusing its binaries; a long build prints progress lines; an interrupted build leaves
 * no temporary files behind; the node's kubelet, kube-scheduler and kube-proxy are built in one
 * `go build` into the cache; missing node packages are installed with apt-get and named, and a
 * failed install is a warning, or with CI=true an error.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  installScript,
  locateBinaries,
  readPinnedVersions,
} from '../../src/sandbox/control-plane/binaries.ts';
import {
  controlPlaneCommands,
  fakeGoCalls,
  nodeCommands,
  prepareKubernetesStubs,
  writeFakeGo,
} from '../support/fake-go.ts';
import { waitFor } from '../support/wait-for.ts';

interface Run {
  readonly code: number | null;
  readonly output: string;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh directory with a fake go and package manager, a cache with the Kubernetes stubs
 * `stubs`, a go log, an apt-get log and a TMPDIR.
 */
function workspace(stubs?: readonly string[]) {
  const root = mkdtempSync(join(tmpdir(), 'coffer-install-test-'));
  dirs.push(root);
  const paths = {
    root,
    cache: join(root, 'cache'),
    bin: join(root, 'fake-bin'),
    goLog: join(root, 'go.log'),
    aptLog: join(root, 'apt.log'),
    tmp: join(root, 'tmp'),
  };
  writeFakeGo(paths.bin);
  prepareKubernetesStubs(paths.cache, stubs);
  mkdirSync(paths.tmp);
  return paths;
}

/** Runs install.sh (in a process group of its own) with the workspace's fake go and cache. */
function startInstall(ws: ReturnType<typeof workspace>, extraEnv: Record<string, string>) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${ws.bin}:${process.env['PATH'] ?? ''}`,
    COFFER_CACHE_DIR: ws.cache,
    FAKE_GO_LOG: ws.goLog,
    FAKE_APT_LOG: ws.aptLog,
    TMPDIR: ws.tmp,
    ...extraEnv,
  };
  for (const key of Object.keys(env))
    if (key === 'KUBEBUILDER_ASSETS' || key.startsWith('TEST_ASSET_')) delete env[key];
  const child = spawn('bash', [installScript.pathname], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
  child.stderr.on('data', (chunk: Buffer) => (output += String(chunk)));
  const done = new Promise<Run>((resolve) => child.once('close', (code) => resolve({ code, output })));
  return { child, done, output: () => output };
}

describe('scripts/control-plane/install.sh', () => {
  const { etcd, helm, kubernetes } = readPinnedVersions();

  it('lets two concurrent runs succeed: the second waits and reuses the first one’s binaries', async () => {
    const ws = workspace();
    const slow = { FAKE_GO_BUILD_SECONDS: '2', COFFER_HEARTBEAT_SECONDS: '1' };
    const first = startInstall(ws, slow);
    // The second starts while the first builds etcd.
    await waitFor(() => fakeGoCalls(ws.goLog, 'build').length > 0, { message: 'the fake go to build' });
    const second = startInstall(ws, slow);
    const [a, b] = await Promise.all([first.done, second.done]);

    expect(a.code, a.output).toBe(0);
    expect(b.code, b.output).toBe(0);
    expect(b.output).toContain('another install.sh is building into');
    expect(b.output).toContain(`etcd ${etcd}: cached in`);
    expect(b.output).toContain(`helm ${helm}: cached in`);
    // Built once each, by the first run.
    expect(fakeGoCalls(ws.goLog, 'build').map((line) => / -o \S+\/bin\/(\w+)/.exec(line)?.[1])).toEqual([
      'etcd',
      'helm',
    ]);
    for (const binary of [`etcd-${etcd}/etcd`, `helm-${helm}/helm`])
      expect(statSync(join(ws.cache, 'bin', binary)).mode & 0o111).not.toBe(0);
    // No half-installed file and no build directory left behind.
    const leftovers = readdirSync(join(ws.cache, 'bin'), { recursive: true }).map(String);
    expect(leftovers.filter((name) => name.includes('partial') || name.endsWith('.tmp'))).toEqual([]);
    expect(readdirSync(ws.tmp)).toEqual([]);
  }, 60_000);

  it('prints progress with the elapsed time and the packages compiled while a build runs', async () => {
    const ws = workspace();
    const run = await startInstall(ws, { FAKE_GO_BUILD_SECONDS: '3', COFFER_HEARTBEAT_SECONDS: '1' }).done;
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/\[control-plane\] building etcd: 0m0\ds elapsed, 3 packages compiled/);
    // The package list of `go build -v` is counted, not printed.
    expect(run.output).not.toContain('example.com/one');
  }, 60_000);

  it('removes its build directory and installs nothing when its process group is terminated mid-build', async () => {
    const ws = workspace();
    const run = startInstall(ws, { FAKE_GO_BUILD_SECONDS: '60' });
    await waitFor(() => fakeGoCalls(ws.goLog, 'build').length > 0, { message: 'the fake go to build' });
    expect(readdirSync(ws.tmp)).toHaveLength(1);
    // As the sandbox does: the whole group (bash, go, its sleep, the progress loop).
    process.kill(-(run.child.pid ?? 0), 'SIGTERM');
    const result = await run.done;
    expect(result.code).not.toBe(0);
    expect(readdirSync(ws.tmp)).toEqual([]);
    expect(existsSync(join(ws.cache, 'bin', `etcd-${etcd}`, 'etcd'))).toBe(false);
    // Nothing unfinished in the cache either (only the stubs and the lock file).
    expect(readdirSync(join(ws.cache, 'bin')).sort()).toEqual(['.install.lock', `k8s-${kubernetes}`]);
  }, 60_000);

  it('builds kubelet, kube-scheduler and kube-proxy in one go build into the Kubernetes cache directory', async () => {
    const ws = workspace(controlPlaneCommands);
    const run = await startInstall(ws, { FAKE_GO_BUILD_SECONDS: '2', COFFER_HEARTBEAT_SECONDS: '1' }).done;

    expect(run.code, run.output).toBe(0);
    const builds = fakeGoCalls(ws.goLog, 'build');
    const kubernetesBuilds = builds.filter((line) => line.includes('k8s.io/kubernetes/cmd/'));
    expect(kubernetesBuilds).toHaveLength(1);
    expect(kubernetesBuilds[0]).toContain(
      ' k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy',
    );
    expect(kubernetesBuilds[0]).toContain(`k8s.io/component-base/version.gitVersion=${kubernetes}`);
    expect(run.output).toMatch(
      /\[control-plane\] building kubelet kube-scheduler kube-proxy: 0m0\ds elapsed, 3 packages compiled/,
    );
    const k8sDir = join(ws.cache, 'bin', `k8s-${kubernetes}`);
    for (const name of nodeCommands) {
      expect(statSync(join(k8sDir, name)).mode & 0o111).not.toBe(0);
      expect(run.output).toContain(`[control-plane] ${name}: stub ${name} --version (${join(k8sDir, name)})`);
    }
    // Where the locator looks for them.
    const located = locateBinaries({ COFFER_CACHE_DIR: ws.cache });
    expect([located.kubelet, located.kubeScheduler, located.kubeProxy]).toEqual(
      nodeCommands.map((name) => join(k8sDir, name)),
    );
    expect(readdirSync(k8sDir).filter((name) => name.includes('partial'))).toEqual([]);
    expect(readdirSync(ws.tmp)).toEqual([]);
  }, 60_000);

  it('installs the node packages that are missing with apt-get, naming each', async () => {
    const ws = workspace();
    const run = await startInstall(ws, { FAKE_APT_MISSING: 'containerd containernetworking-plugins' }).done;

    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('[control-plane] installing node package containerd (apt-get)');
    expect(run.output).toContain(
      '[control-plane] installing node package containernetworking-plugins (apt-get)',
    );
    expect(run.output).not.toContain('installing node package runc');
    const aptCalls = readFileSync(ws.aptLog, 'utf8').trim().split('\n');
    expect(aptCalls[0]).toMatch(/^update\b/);
    expect(aptCalls[1]).toMatch(/^install .* containerd containernetworking-plugins$/);
    expect(aptCalls).toHaveLength(2);
  }, 60_000);

  it('asks apt-get for nothing when the node packages are installed', async () => {
    const ws = workspace();
    const run = await startInstall(ws, {}).done;

    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('[control-plane] node packages: installed (containerd runc');
    expect(existsSync(ws.aptLog)).toBe(false);
  }, 60_000);

  it('fails with CI=true when a node package cannot be installed, and only warns without CI', async () => {
    const failing = { FAKE_APT_MISSING: 'runc', FAKE_APT_FAIL: '1' };
    const ci = await startInstall(workspace(), { ...failing, CI: 'true' }).done;
    expect(ci.code, ci.output).toBe(1);
    expect(ci.output).toContain(
      '[control-plane] error: cannot install the node packages runc (apt-get failed)',
    );

    const local = await startInstall(workspace(), { ...failing, CI: '' }).done;
    expect(local.code, local.output).toBe(0);
    expect(local.output).toContain(
      '[control-plane] warning: cannot install the node packages runc (apt-get failed)',
    );
  }, 60_000);
});
