/**
 * `coffer sandbox --data-dir DIR` run four times on the same directory while the DynamicSecret
 * sample's provider changes: without PostgreSQL (the Kubernetes variant, forced as the
 * Kubernetes-lease test does), then with PostgreSQL twice (a new server, port and password each
 * run), then without again. Every run gets every sample Ready and Synced and delivers a working
 * lease; the service holds exactly one dynamic secret `demo-app`, of the run's provider. When the
 * provider stayed, it is the same definition, updated in place (same id); when it changed, the
 * previous run's definition was removed (the sandbox says so) and a new one created.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServiceClient, staticToken } from '../../src/client/index.ts';
import type { DynamicSecretProvider } from '../../src/sandbox/dynamic-secret-sample.ts';
import type { Sandbox } from '../../src/sandbox/sandbox.ts';
import { startSandbox } from '../../src/sandbox/start.ts';
import { isSettled } from '../../src/sandbox/status.ts';
import { expectLeaseDelivered, secretData } from '../support/sandbox-lease.ts';

/** The service's dynamic secrets in the demo project's dev:/ (names, types and ids). */
async function serviceDynamicSecrets(sandbox: Sandbox) {
  const { token = '' } = await secretData(sandbox, 'coffer-admin');
  const client = createServiceClient({ baseUrl: sandbox.devserver.url, auth: staticToken(token) });
  try {
    const scope = { projectSlug: 'demo-project', environmentSlug: 'dev', path: '/' };
    const listed = await client.dynamicSecrets.list(scope);
    return listed.map(({ id, name, type }) => ({ id, name, type }));
  } finally {
    await client.close();
  }
}

interface Run {
  readonly progress: string;
  readonly definition: { id: string; name: string; type: string };
}

describe('coffer sandbox reusing a data dir while the DynamicSecret sample changes provider', () => {
  // As root the sandbox's PostgreSQL runs as `postgres`, which must reach its directory in here.
  const dataDir = mkdtempSync(join(tmpdir(), 'coffer-test-reuse-'));
  chmodSync(dataDir, 0o711);
  const runs: Run[] = [];

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** One sandbox run on the data dir: Ready, a lease delivered, one definition of `provider`. */
  async function run(provider: DynamicSecretProvider): Promise<Run> {
    const lines: string[] = [];
    const sandbox = await startSandbox({
      dataDir,
      installStdio: 'ignore',
      dynamicSecretProvider: provider,
      log: (line) => lines.push(line),
    });
    try {
      const { ready, states } = await sandbox.waitUntilReady({ timeoutMs: 150_000 });
      const failing = states
        .filter((s) => !s.blocked && !isSettled(s))
        .map((s) => `${s.kind}/${s.name}: ${s.synced?.reason ?? '-'} ${s.synced?.message ?? ''}`);
      expect(failing).toEqual([]);
      expect(ready).toBe(true);
      await expectLeaseDelivered(sandbox);
      const definitions = await serviceDynamicSecrets(sandbox);
      const type = provider === 'sqlDatabase' ? 'sql-database' : 'kubernetes';
      expect(definitions.map(({ name, type }) => ({ name, type }))).toEqual([{ name: 'demo-app', type }]);
      const result = {
        progress: lines.join('\n'),
        definition: definitions[0] ?? { id: '', name: '', type: '' },
      };
      runs.push(result);
      return result;
    } finally {
      await sandbox.stop();
    }
  }

  it('starts with the Kubernetes provider', async () => {
    const first = await run('kubernetes');
    expect(first.progress).toContain('Kubernetes provider');
    expect(first.progress).not.toContain('removed the dynamic secret');
  }, 300_000);

  it('replaces the definition when PostgreSQL takes over', async () => {
    const [previous] = runs;
    const next = await run('sqlDatabase');
    expect(next.progress).toContain('state reused from');
    expect(next.progress).toContain('removed the dynamic secret demo-app');
    expect(next.definition.id).not.toBe(previous?.definition.id);
  }, 300_000);

  it('updates the definition in place for a new PostgreSQL (new port and password)', async () => {
    const previous = runs[1];
    const next = await run('sqlDatabase');
    expect(next.progress).not.toContain('removed the dynamic secret');
    expect(next.definition.id).toBe(previous?.definition.id);
  }, 300_000);

  it('replaces it again without PostgreSQL', async () => {
    const previous = runs[2];
    const next = await run('kubernetes');
    expect(next.progress).toContain('removed the dynamic secret demo-app');
    expect(next.definition.id).not.toBe(previous?.definition.id);
  }, 300_000);
});
