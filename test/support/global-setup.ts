// Vitest global setup of the integration project: one real control plane per run, shared by all
// integration test files through `inject('controlPlane')` (see test/support/kube.ts).
import type { TestProject } from 'vitest/node';
import { startControlPlane, type ControlPlaneInfo } from './control-plane.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's control plane: server URL, admin kubeconfig path, CA paths, versions. */
    controlPlane: ControlPlaneInfo;
  }
}

/** Starts the control plane, provides its connection facts to tests, and stops it on teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const plane = await startControlPlane();
  project.provide('controlPlane', plane.info);
  return () => plane.stop();
}
