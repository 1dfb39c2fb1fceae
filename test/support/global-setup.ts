// Vitest global setup of the integration projects: real control planes shared by the integration
// test files of a run — one per worker slot of the project (`maxWorkers`), so files running at the
// same time never share an API server (cluster-scoped objects, CRDs and events of one file are
// invisible to the operators of another), while the files of one slot run one after another on
// theirs, as a single shared control plane did. Tests reach their slot's control plane through
// `injectedControlPlane()` (test/support/kube.ts).
import type { TestProject } from 'vitest/node';
import { startControlPlane, type ControlPlane, type ControlPlaneInfo } from './control-plane.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The first worker slot's control plane: server URL, admin kubeconfig path, CA paths, versions. */
    controlPlane: ControlPlaneInfo;
    /** One control plane per worker slot, index `VITEST_POOL_ID - 1` (see `injectedControlPlane`). */
    controlPlanes: ControlPlaneInfo[];
  }
}

/** Starts one control plane per worker slot, provides their connection facts, stops them on teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const slots = Math.max(1, project.config.maxWorkers);
  const started = await Promise.allSettled(Array.from({ length: slots }, () => startControlPlane()));
  const planes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.all(planes.map((plane: ControlPlane) => plane.stop()));
  };
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  project.provide(
    'controlPlanes',
    planes.map((plane) => plane.info),
  );
  project.provide('controlPlane', planes[0]!.info);
  return stop;
}
