// Informer recovery when the API server restarts mid-watch. Runs its own control plane, because
// restarting the shared one would break every other test's watches.
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Informer } from '../../src/runtime/informer.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { startControlPlane, type ControlPlane } from '../support/control-plane.ts';
import { waitFor } from '../support/kube.ts';

let plane: ControlPlane;

beforeAll(async () => {
  plane = await startControlPlane({ log: () => undefined });
}, 120_000);

afterAll(async () => {
  await plane?.stop();
});

describe('Informer across an API server restart', () => {
  it('re-establishes the watch and sees changes made around the restart', async () => {
    const kc = plane.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const ns = await plane.createNamespace();
    const put = (name: string) =>
      core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name, namespace: ns }, data: { v: name } },
      });
    await put('kept');
    await put('deleted-after-restart');

    const restarts: string[] = [];
    const informer = new Informer<V1ConfigMap>({
      name: 'configmaps',
      kubeConfig: kc,
      resource: { group: '', version: 'v1', plural: 'configmaps', namespaced: true },
      namespaces: [ns],
      log: createLogger({ level: 'silent' }),
      // Keep retries frequent so the test does not wait on a long backoff.
      backoff: { baseMs: 200, maxMs: 1_000 },
      onRestart: (reason) => restarts.push(reason),
    });
    const events: string[] = [];
    informer.on('add', (o) => events.push(`add ${o.metadata?.name}`));
    informer.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
    informer.start();
    try {
      await informer.waitForSync();
      expect(
        informer
          .list()
          .map((o) => o.metadata?.name)
          .sort(),
      ).toEqual(['deleted-after-restart', 'kept']);

      await plane.restartApiServer();
      // Changed as soon as the API server is back, typically while the informer is still
      // backing off from the broken watch: it must catch up by relisting or re-watching.
      await put('created-after-restart');
      await core.deleteNamespacedConfigMap({ namespace: ns, name: 'deleted-after-restart' });

      await waitFor(() => informer.get(ns, 'created-after-restart'), {
        timeoutMs: 30_000,
        message: 'the new object',
      });
      await waitFor(() => !informer.get(ns, 'deleted-after-restart'), {
        timeoutMs: 30_000,
        message: 'the deletion',
      });
      expect(events).toContain('add created-after-restart');
      expect(events).toContain('delete deleted-after-restart');
      expect(informer.restarts).toBeGreaterThanOrEqual(1);
      expect(restarts.length).toBe(informer.restarts);

      // The watch is live again: a later change arrives without another restart.
      const restartsBefore = informer.restarts;
      await put('created-later');
      await waitFor(() => informer.get(ns, 'created-later'), {
        timeoutMs: 30_000,
        message: 'a later object',
      });
      expect(informer.restarts).toBe(restartsBefore);
    } finally {
      await informer.stop();
    }
  });
});
