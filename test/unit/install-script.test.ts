/**
 * scripts/control-plane/install.sh with a fake `go` (test/support/fake-go.ts) and a cache whose
 * Kubernetes binaries are stubs, so nothing real is built: two runs at once against one cache
 * both succeed, the second waiting for the first and reusing its binaries; a long build prints
 * progress lines; and an interrupted build leaves no temporary files behind.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { installScript, readPinnedVersions } from '../../src/sandbox/control-plane/binaries.ts';
import { fakeGoCalls, prepareKubernetesStubs, writeFakeGo } from '../support/fake-go.ts';
import { waitFor } from '../support/wait-for.ts';

interface Run {
  readonly code: number | null;
  readonly output: string;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory with a fake go, a Kubernetes-stub cache, a go log and a TMPDIR. */
function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'coffer-install-test-'));
  dirs.push(root);
  const paths = {
    root,
    cache: join(root, 'cache'),
    bin: join(root, 'fake-bin'),
    goLog: join(root, 'go.log'),
    tmp: join(root, 'tmp'),
  };
  writeFakeGo(paths.bin);
  prepareKubernetesStubs(paths.cache);
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
});
