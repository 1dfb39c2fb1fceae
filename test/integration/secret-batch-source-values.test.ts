// SecretBatch sources read from the operator's Secret watch, against the real control plane and a
// devserver: a SecretBatch whose Secret appears after it converges when it does, an edit of the
// Secret is pushed without the operator asking kube-apiserver for the Secret, a Secret labelled
// coffer.dev/source is read from the watch from the first reconcile, and only the values of
// referenced (or labelled) Secrets are held (coffer_cached_secret_values).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiServerRequests } from '../../scripts/bench/apiserver-requests.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { secretBatchController } from '../../src/controllers/secret-batch/index.ts';
import { LABEL_SOURCE } from '../../src/operator/secret-values.ts';
import { waitFor } from '../support/kube.ts';
import { folderValues } from '../support/service-folder.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
let projectId = '';

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [projectController, secretBatchController] } });
  projectId = await h.createDevProject('shop', 'Shop');
});

afterAll(async () => {
  await h?.stop();
});

const batch = (secretPath: string, source: string) => ({
  connectionRef: { name: HARNESS_CONNECTION },
  projectRef: { name: 'shop' },
  environment: 'dev',
  secretPath,
  createFolders: true,
  fromSecret: { name: source },
});

const folder = (secretPath: string) => folderValues(h.service, projectId, secretPath);

/** `GET secrets` kube-apiserver has answered so far (every client: the harness reads none here). */
async function secretGets(): Promise<number> {
  return (await apiServerRequests(h.kubeConfig)).get('GET secrets') ?? 0;
}

/** The operator's `coffer_cached_secret_values` gauge. */
async function heldValues(): Promise<number> {
  const metric = await h.operator.manager.metrics.registry
    .getSingleMetric('coffer_cached_secret_values')
    ?.get();
  return metric?.values[0]?.value ?? Number.NaN;
}

async function waitForHeld(count: number): Promise<void> {
  await waitFor(async () => (await heldValues()) === count, {
    timeoutMs: 15_000,
    message: `coffer_cached_secret_values to be ${count}`,
  });
}

describe('SecretBatch source values from the watch', () => {
  it('waits for a Secret created after it, then converges when the Secret appears', async () => {
    await h.create('SecretBatch', 'late', batch('/late', 'late-src'));
    await h.waitForCondition('SecretBatch', 'late', {
      type: 'Synced',
      status: 'False',
      reason: 'SecretNotFound',
    });
    await h.createSecret('late-src', { TOKEN: 'first' });
    await h.waitForReady('SecretBatch', 'late');
    expect(await folder('/late')).toEqual({ TOKEN: 'first' });
    await waitForHeld(1);
  });

  it('pushes an edit of its Secret without reading the Secret from kube-apiserver', async () => {
    const before = await secretGets();
    await h.createSecret('late-src', { TOKEN: 'second' });
    await waitFor(async () => (await folder('/late')).TOKEN === 'second', {
      timeoutMs: 15_000,
      message: 'the edited value in the service',
    });
    expect(await secretGets()).toBe(before);
  });

  it('holds no values of Secrets no SecretBatch references, and lets go of a source when its SecretBatch goes', async () => {
    await h.createSecret('bystander', { UNUSED: 'value' });
    await waitFor(
      () => Promise.resolve(h.operator.services.cachedPayload?.('Secret', h.namespace, 'bystander')),
      {
        timeoutMs: 15_000,
        message: 'the operator to see Secret bystander',
      },
    );
    expect(await heldValues()).toBe(1);
    await h.delete('SecretBatch', 'late');
    await h.waitForDeletion('SecretBatch', 'late');
    await waitForHeld(0);
  });

  it('reads a labelled Secret created before its SecretBatch from the watch, from the first reconcile', async () => {
    const body = {
      metadata: { name: 'early-src', labels: { [LABEL_SOURCE]: 'true' } },
      stringData: { A: '1' },
    };
    await h.core.createNamespacedSecret({ namespace: h.namespace, body });
    await waitForHeld(1);
    const before = await secretGets();
    await h.create('SecretBatch', 'early', batch('/early', 'early-src'));
    await h.waitForReady('SecretBatch', 'early');
    expect(await folder('/early')).toEqual({ A: '1' });
    expect(await secretGets()).toBe(before);
  });
});
