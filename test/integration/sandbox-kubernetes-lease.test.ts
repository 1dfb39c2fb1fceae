/**
 * `coffer sandbox` where PostgreSQL is not installed (forced here with `dynamicSecretProvider`):
 * no PostgreSQL is started, the DynamicSecret sample's Kubernetes variant is applied instead —
 * pointed at the sandbox's API server with its CA, its cluster token filled in by the token
 * controller — every sample gets Ready and Synced, and demo-app-env holds a token of the
 * ServiceAccount demo-app that the API server authenticates.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.ts';
import { startSandbox } from '../../src/sandbox/start.ts';
import { isSettled, type ResourceState } from '../../src/sandbox/status.ts';
import { expectLeaseDelivered } from '../support/sandbox-lease.ts';

describe('coffer sandbox with the Kubernetes provider for the DynamicSecret sample', () => {
  let sandbox: Sandbox;
  let states: ResourceState[];
  let ready: boolean;
  const progress: string[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({
      log: (line) => progress.push(line),
      installStdio: 'ignore',
      dynamicSecretProvider: 'kubernetes',
    });
    ({ ready, states } = await sandbox.waitUntilReady({ timeoutMs: 150_000 }));
  }, 240_000);

  afterAll(async () => {
    await sandbox?.stop();
  }, 60_000);

  it('starts no PostgreSQL and says so', () => {
    expect(sandbox.dynamicSecrets).toMatchObject({ provider: 'kubernetes' });
    const dataDir = sandbox.operatorLogPath.replace(/\/operator\.log$/, '');
    expect(readdirSync(dataDir).filter((name) => name.includes('postgres'))).toEqual([]);
    expect(progress.join('\n')).toContain('Kubernetes provider');
  });

  it('gets every sample Ready and Synced, the Kubernetes DynamicSecret included', () => {
    const failing = states
      .filter((s) => !s.blocked && !isSettled(s))
      .map((s) => `${s.kind}/${s.name}: ${s.synced?.reason ?? '-'} ${s.synced?.message ?? ''}`);
    expect(failing).toEqual([]);
    expect(ready).toBe(true);
    expect(states.filter((s) => s.kind === 'DynamicSecret').map((s) => s.name)).toEqual(['demo-app-token']);
  });

  it('delivers a token of the ServiceAccount demo-app into demo-app-env', async () => {
    await expectLeaseDelivered(sandbox);
  }, 90_000);
});
