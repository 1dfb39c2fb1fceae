// Rollout restarts: only on a change of the delivered hash, debounced, to the named and the
// annotated workloads, patching nothing but two pod template annotations.
import { describe, expect, it } from 'vitest';
import { RolloutRestarts, type RolloutSubject } from './index.ts';
import type { WorkloadApi, WorkloadKind, WorkloadRef } from './workloads.ts';

class FakeApi implements WorkloadApi {
  readonly patches: { kind: string; name: string; annotations: Record<string, string> }[] = [];
  private readonly workloads: WorkloadRef[];
  constructor(workloads: WorkloadRef[]) {
    this.workloads = workloads;
  }
  list(_namespace: string, kind: WorkloadKind): Promise<WorkloadRef[]> {
    return Promise.resolve(this.workloads.filter((w) => w.kind === kind));
  }
  annotateTemplate(
    target: { kind: WorkloadKind; name: string },
    annotations: Readonly<Record<string, string>>,
  ): Promise<void> {
    this.patches.push({ kind: target.kind, name: target.name, annotations: { ...annotations } });
    return Promise.resolve();
  }
}

const obj: RolloutSubject = {
  metadata: { name: 'app', namespace: 'ns' },
  spec: { rollout: { workloads: [{ kind: 'Deployment', name: 'web' }], debounce: '5s' } },
  status: { contentHash: 'h0' },
};
const targets = ['app-config'];
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

describe('RolloutRestarts', () => {
  it('restarts the named and the annotated workloads once, after the last change of a burst', async () => {
    const api = new FakeApi([
      { kind: 'Deployment', name: 'web' },
      { kind: 'StatefulSet', name: 'db', reloadSecrets: 'other, app-config' },
      { kind: 'DaemonSet', name: 'agent', reloadSecrets: 'other' },
    ]);
    const rollout = new RolloutRestarts(api);
    const first = await rollout.afterDelivery(obj, { hash: 'h1', targets }, at(0));
    expect(first).toMatchObject({
      requeueAfterMs: 5000,
      pendingRestart: { contentHash: 'h1', fromHash: 'h0', notBefore: at(5000).toISOString() },
    });
    expect((await rollout.afterDelivery(obj, { hash: 'h2', targets }, at(3000))).requeueAfterMs).toBe(5000);
    expect((await rollout.afterDelivery(obj, { hash: 'h2', targets }, at(5000))).requeueAfterMs).toBe(3000);
    expect(api.patches).toEqual([]);
    const done = await rollout.afterDelivery(obj, { hash: 'h2', targets }, at(8000));
    expect(done.lastRestart).toEqual({
      time: at(8000).toISOString(),
      workloads: ['Deployment/web', 'StatefulSet/db'],
    });
    expect(api.patches.map((p) => p.name)).toEqual(['web', 'db']);
    expect(api.patches[0]?.annotations).toEqual({
      'coffer.dev/restarted-at': at(8000).toISOString(),
      'coffer.dev/content-hash': 'h2',
    });
    await rollout.afterDelivery(obj, { hash: 'h2', targets }, at(20_000));
    expect(api.patches).toHaveLength(2);
  });

  it('restarts nothing on the first delivery, an unchanged hash, or a burst back to where it started', async () => {
    const api = new FakeApi([{ kind: 'Deployment', name: 'web' }]);
    const rollout = new RolloutRestarts(api);
    await rollout.afterDelivery({ ...obj, status: {} }, { hash: 'h0', targets }, at(0));
    await rollout.afterDelivery(obj, { hash: 'h0', targets }, at(10_000));
    await rollout.afterDelivery(obj, { hash: 'h1', targets }, at(11_000));
    await rollout.afterDelivery(obj, { hash: 'h0', targets }, at(12_000));
    // A status still showing h1 (a lagging cache) does not count as a change either.
    await rollout.afterDelivery(
      { ...obj, status: { contentHash: 'h1' } },
      { hash: 'h0', targets },
      at(30_000),
    );
    expect(api.patches).toEqual([]);
  });

  it('warns about a named workload that does not exist and keeps the recorded restart', async () => {
    const rollout = new RolloutRestarts(new FakeApi([]));
    const recorded = { time: at(0).toISOString(), workloads: ['Deployment/web'] };
    const instant = { ...obj, spec: { rollout: { ...obj.spec.rollout, debounce: '0s' } } };
    const out = await rollout.afterDelivery(
      { ...instant, status: { contentHash: 'h0', lastRestart: recorded } },
      { hash: 'h1', targets },
      at(1),
    );
    expect(out.lastRestart).toEqual(recorded);
    expect(out.events.map((e) => e.reason)).toEqual(['RolloutWorkloadNotFound']);
  });

  it('takes a pending restart from status after an operator restart and carries it out once', async () => {
    const api = new FakeApi([
      { kind: 'Deployment', name: 'web' },
      { kind: 'StatefulSet', name: 'db', reloadSecrets: 'app-config', restartedFor: 'h1' },
    ]);
    const pendingRestart = { contentHash: 'h1', fromHash: 'h0', notBefore: at(5000).toISOString() };
    const recorded = { ...obj, status: { contentHash: 'h1', pendingRestart } };
    // A new operator before the debounce ends: it waits for the rest of it, recording it again.
    const early = await new RolloutRestarts(api).afterDelivery(recorded, { hash: 'h1', targets }, at(2000));
    expect(early).toMatchObject({ requeueAfterMs: 3000, pendingRestart });
    expect(api.patches).toEqual([]);
    // Another new operator after it: restarts, skipping the workload already restarted for h1.
    const rollout = new RolloutRestarts(api);
    const done = await rollout.afterDelivery(recorded, { hash: 'h1', targets }, at(6000));
    expect(done.pendingRestart).toBeUndefined();
    expect(done.lastRestart?.workloads).toEqual(['Deployment/web']);
    expect(api.patches.map((p) => p.name)).toEqual(['web']);
    // The status read from a lagging cache still shows the pending restart: nothing more.
    await rollout.afterDelivery(recorded, { hash: 'h1', targets }, at(7000));
    expect(api.patches).toHaveLength(1);
  });

  it('forgets a recorded pending restart whose burst came back to where it started', async () => {
    const api = new FakeApi([{ kind: 'Deployment', name: 'web' }]);
    const pendingRestart = { contentHash: 'h1', fromHash: 'h0', notBefore: at(5000).toISOString() };
    const recorded = { ...obj, status: { contentHash: 'h1', pendingRestart } };
    const rollout = new RolloutRestarts(api);
    const back = await rollout.afterDelivery(recorded, { hash: 'h0', targets }, at(6000));
    expect(back.pendingRestart?.fromHash).toBe('h0');
    const out = await rollout.afterDelivery(recorded, { hash: 'h0', targets }, at(12_000));
    expect(out.pendingRestart).toBeUndefined();
    expect(api.patches).toEqual([]);
  });
});
