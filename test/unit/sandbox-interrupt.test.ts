/**
 * Ctrl-C while `coffer sandbox` builds the control-plane binaries on first run: the sandbox stops
 * install.sh and everything it started (go and its children), removes its temporary files and
 * exits 1. The build is a fake `go` (test/support/fake-go.ts) that takes five minutes to resolve
 * modules, so only an interrupt that reaches it ends the test in time.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { packageFile } from '../../src/runtime/package-root.ts';
import { fakeGoCalls, processesWithEnvironment, writeFakeGo } from '../support/fake-go.ts';
import { waitFor } from '../support/wait-for.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('stops install.sh, go and their children on SIGINT during the first-run build', async () => {
  const root = mkdtempSync(join(tmpdir(), 'coffer-sandbox-interrupt-'));
  dirs.push(root);
  const cache = join(root, 'cache');
  const fakeBin = join(root, 'fake-bin');
  const goLog = join(root, 'go.log');
  const tmp = join(root, 'tmp');
  mkdirSync(tmp);
  writeFakeGo(fakeBin);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${fakeBin}:${process.env['PATH'] ?? ''}`,
    COFFER_CACHE_DIR: cache,
    FAKE_GO_LOG: goLog,
    FAKE_GO_RESOLVE_SECONDS: '300',
    TMPDIR: tmp,
  };
  for (const key of Object.keys(env))
    if (key === 'KUBEBUILDER_ASSETS' || key.startsWith('TEST_ASSET_')) delete env[key];
  const sandbox = spawn(process.execPath, [packageFile('src/cli/main.ts').pathname, 'sandbox'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  sandbox.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
  sandbox.stderr.on('data', (chunk: Buffer) => (output += String(chunk)));
  const exited = new Promise<number | null>((resolve) => sandbox.once('close', resolve));
  const marker = `COFFER_CACHE_DIR=${cache}`;
  const buildProcesses = (): string[] =>
    processesWithEnvironment(marker).filter((line) => !line.startsWith(`${sandbox.pid}:`));

  try {
    // install.sh runs the fake `go get`, which sleeps.
    await waitFor(() => fakeGoCalls(goLog, 'get').length > 0, {
      timeoutMs: 60_000,
      message: 'the first-run build to start',
    });
    const running = buildProcesses();
    expect(
      running.some((line) => line.includes('install.sh')),
      running.join('\n'),
    ).toBe(true);
    expect(
      running.some((line) => line.includes(`${fakeBin}/go get`)),
      running.join('\n'),
    ).toBe(true);

    sandbox.kill('SIGINT');
    const code = await Promise.race([
      exited,
      new Promise<string>((resolve) => setTimeout(() => resolve('still running after 20 s'), 20_000)),
    ]);
    expect(code, output).toBe(1);
    await waitFor(() => buildProcesses().length === 0, {
      timeoutMs: 10_000,
      message: 'the build processes to end',
    }).catch(() => undefined);
    expect(buildProcesses()).toEqual([]);
    expect(output).toContain('control-plane build stopped');
    // install.sh's build directory and the sandbox's data directory are gone.
    await waitFor(() => readdirSync(tmp).length === 0, {
      timeoutMs: 10_000,
      message: 'the temporary directories to be removed',
    }).catch(() => undefined);
    expect(readdirSync(tmp)).toEqual([]);
  } finally {
    sandbox.kill('SIGKILL');
    for (const line of buildProcesses()) process.kill(Number(line.split(':')[0]), 'SIGKILL');
  }
}, 120_000);
