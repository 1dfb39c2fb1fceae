// No self-inflicted reads: a SecretBatch reads its folder once when it is created and not again
// when the echo of its own write comes back on the project's event stream; a change someone
// else makes in the service still wakes it, and it reads, corrects and again ignores its own echo.
// Folder reads are counted by the devserver (`GET /api/v3/secrets/raw`); the test itself reads
// single secrets only (another route). Each batch polls once an hour, so only events explain reads.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectController } from '../../src/controllers/project/index.ts';
import { projectEventHub } from '../../src/controllers/project-events/index.ts';
import { secretBatchController } from '../../src/controllers/secret-batch/index.ts';
import { waitForOperatorIdle } from '../support/idle.ts';
import { waitFor } from '../support/kube.ts';
import {
  HARNESS_CONNECTION,
  startOperatorHarness,
  type CofferObject,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
let projectId = '';
const connectionRef = { name: HARNESS_CONNECTION };
const FOLDER_READ = 'GET /api/v3/secrets/raw';
const BATCH_WRITE = 'PATCH /api/v3/secrets/batch/raw';

const count = (route: string): number => h.devserver.stats.snapshot().requests.byRoute[route] ?? 0;
const hub = () => projectEventHub(h.operator.services, 'SecretBatch');

function batch(keys: readonly string[]) {
  return {
    connectionRef,
    projectRef: { name: 'echo' },
    environment: 'dev',
    secretPath: '/',
    pollInterval: '1h',
    secrets: keys.map((key) => ({ key, value: `v-${key}` })),
  };
}

async function waitForActive(name: string): Promise<CofferObject> {
  return waitFor(
    async () => {
      const obj = await h.get('SecretBatch', name);
      const events = obj?.status?.events as { state?: string } | undefined;
      return events?.state === 'Active' && obj?.status?.ownedKeyCount !== undefined ? obj : undefined;
    },
    { timeoutMs: 30_000, message: `SecretBatch ${name} Ready with an Active event stream` },
  );
}

async function storedValue(key: string): Promise<string | undefined> {
  const secret = await h.service.secrets.get(key, {
    workspaceId: projectId,
    environment: 'dev',
    secretPath: '/',
  });
  return secret.secretValue;
}

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [projectController, secretBatchController] } });
  await h.create('Project', 'echo', {
    connectionRef,
    name: 'echo',
    slug: `echo-${randomBytes(3).toString('hex')}`,
    environments: [{ name: 'Development', slug: 'dev' }],
    deletionPolicy: 'Delete',
  });
  projectId = (await h.waitForReady('Project', 'echo')).status?.id ?? '';
  // A first batch in the folder opens the project's stream for it; later ones share it.
  await h.create('SecretBatch', 'anchor', batch(['ANCHOR']));
  await h.waitForReady('SecretBatch', 'anchor');
  await waitForActive('anchor');
  await waitForOperatorIdle(h.operator);
});

afterAll(async () => {
  await h?.stop();
});

describe('SecretBatch own writes', () => {
  const keys = Array.from({ length: 10 }, (_, i) => `OWN_${i}`);

  it('reads its folder once at creation and not again when its own write comes back', async () => {
    const reads = count(FOLDER_READ);
    const writes = count(BATCH_WRITE);
    const echoes = hub().echoesIgnored;
    await h.create('SecretBatch', 'own', batch(keys));
    await h.waitForReady('SecretBatch', 'own');
    await waitFor(() => Promise.resolve(hub().echoesIgnored > echoes), {
      message: 'the echo of the batch write',
    });
    await waitForOperatorIdle(h.operator);
    expect(count(BATCH_WRITE) - writes).toBe(1);
    expect(count(FOLDER_READ) - reads).toBe(1);
    expect(await storedValue('OWN_3')).toBe('v-OWN_3');
  });

  it('reads and corrects after a change made in the service, then ignores its own correction', async () => {
    const reads = count(FOLDER_READ);
    const echoes = hub().echoesIgnored;
    await h.service.secrets.update('OWN_3', {
      workspaceId: projectId,
      environment: 'dev',
      secretPath: '/',
      secretValue: 'changed-elsewhere',
    });
    const corrected = await waitFor(
      async () => {
        const obj = await h.get('SecretBatch', 'own');
        return obj?.status?.driftCorrections === 1 ? obj : undefined;
      },
      { timeoutMs: 10_000, message: 'the correction of OWN_3' },
    );
    expect(corrected.status?.ownedKeyCount).toBe(10);
    expect(await storedValue('OWN_3')).toBe('v-OWN_3');
    await waitFor(() => Promise.resolve(hub().echoesIgnored > echoes), {
      message: 'the echo of the correction',
    });
    await waitForOperatorIdle(h.operator);
    expect(count(FOLDER_READ) - reads).toBe(1);
  });

  it('is woken by a change to one of its keys even right after its own write', async () => {
    // The correction's echo was consumed: a second foreign change is not mistaken for it.
    const reads = count(FOLDER_READ);
    await h.service.secrets.update('OWN_7', {
      workspaceId: projectId,
      environment: 'dev',
      secretPath: '/',
      secretValue: 'changed-again',
    });
    await waitFor(async () => (await storedValue('OWN_7')) === 'v-OWN_7', {
      timeoutMs: 10_000,
      message: 'OWN_7 restored',
    });
    expect(count(FOLDER_READ) - reads).toBe(1);
  });
});
