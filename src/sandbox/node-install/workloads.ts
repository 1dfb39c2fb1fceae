/**
 * Workloads on the node: the samples' Deployments made runnable there (their images replaced by
 * the node's locally built probe image, never pulled), and the wait for a Deployment's rollout to
 * finish as `kubectl rollout status` reports it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppsV1Api, CoreV1Api, V1Deployment, V1Pod } from '@kubernetes/client-node';
import { probeImage } from '../control-plane/node/images.ts';
import type { WireObject } from '../samples.ts';

interface Container {
  image?: string;
  command?: string[];
  args?: string[];
  imagePullPolicy?: string;
}

/**
 * A copy of `obj` that runs on the node: a Deployment's containers use the probe image (which
 * prints a line and waits for SIGTERM) with `imagePullPolicy: Never`; everything else (env,
 * mounts of the delivered Secret) stays. Other objects are returned as they are.
 */
export function runnableOnNode(obj: WireObject): WireObject {
  if (obj.kind !== 'Deployment') return obj;
  const copy = structuredClone(obj);
  const spec = copy.spec as { template?: { spec?: { containers?: Container[] } } } | undefined;
  for (const container of spec?.template?.spec?.containers ?? []) {
    container.image = probeImage;
    container.imagePullPolicy = 'Never';
    delete container.command;
    delete container.args;
  }
  return copy;
}

/** True when the Deployment's rollout is complete: every replica updated, ready and available, none left over. */
export function rolledOut(deployment: V1Deployment): boolean {
  const wanted = deployment.spec?.replicas ?? 1;
  const { observedGeneration, updatedReplicas, readyReplicas, availableReplicas, replicas } =
    deployment.status ?? {};
  const counts = [updatedReplicas, readyReplicas, availableReplicas, replicas];
  return (
    (observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 1) &&
    counts.every((count) => (count ?? 0) === wanted)
  );
}

function podLine(pod: V1Pod): string {
  const states = (pod.status?.containerStatuses ?? []).map((c) => {
    const why = c.state?.waiting ?? c.state?.terminated ?? c.lastState?.terminated;
    return `${c.name} ready=${c.ready} restarts=${c.restartCount}${why ? ` ${why.reason ?? ''}: ${why.message ?? ''}` : ''}`;
  });
  const unscheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status !== 'True');
  return `pod ${pod.metadata?.name} ${pod.status?.phase}${unscheduled ? ` unscheduled: ${unscheduled.message}` : ''} ${states.join(', ')}`;
}

/** One line per Pod of `deployment`: phase, and each container's readiness and why it waits or ended. */
async function podProblems(
  core: CoreV1Api,
  namespace: string,
  deployment: V1Deployment | undefined,
): Promise<string[]> {
  const labels = deployment?.spec?.selector.matchLabels ?? {};
  const labelSelector = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const pods = await core.listNamespacedPod({ namespace, labelSelector });
  return pods.items.map(podLine);
}

/**
 * Polls (every 250 ms) until the Deployment `namespace/name` is rolled out (see {@link rolledOut});
 * throws after `timeoutMs` with its last status (and, given `core`, its Pods' states).
 */
export async function waitForRollout(
  apps: AppsV1Api,
  where: { namespace: string; name: string },
  timeoutMs: number,
  core?: CoreV1Api,
): Promise<V1Deployment> {
  const deadline = Date.now() + timeoutMs;
  let last: V1Deployment | undefined;
  for (;;) {
    try {
      last = await apps.readNamespacedDeployment(where);
      if (rolledOut(last)) return last;
    } catch {
      // Not there yet, or the API server is busy: asked again until the deadline.
    }
    if (Date.now() >= deadline) {
      const pods = core ? await podProblems(core, where.namespace, last).catch(() => []) : [];
      const conditions = (last?.status?.conditions ?? []).map((c) => `${c.type}=${c.status} (${c.message})`);
      const what = [...conditions, ...pods].join('; ');
      throw new Error(
        `cannot roll out deployment ${where.namespace}/${where.name} in ${timeoutMs} ms: ${what}`,
      );
    }
    await sleep(250);
  }
}
