// Small helpers for integration tests running against the run's control plane.
import type { KubeConfig } from '@kubernetes/client-node';
import { KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { inject } from 'vitest';
import {
  statusCodeOf,
  TestCluster,
  testFieldManager,
  toClientModel,
  type ControlPlaneInfo,
} from './control-plane-cluster.ts';

export { waitFor, type WaitForOptions } from './wait-for.ts';
export { statusCodeOf, toClientModel } from './control-plane-cluster.ts';

/**
 * This worker's control plane (started by the global setup, one per worker slot): files that run
 * at the same time get different ones, files of one slot share theirs, one after another.
 */
export function injectedControlPlane(): ControlPlaneInfo {
  const planes = inject('controlPlanes');
  const slot = Number(process.env['VITEST_POOL_ID'] ?? '1');
  const plane = planes[(slot - 1) % planes.length];
  if (!plane) throw new Error(`no control plane provided for worker slot ${slot}`);
  return plane;
}

/** This worker's control plane (see {@link injectedControlPlane}) as a {@link TestCluster}. */
export function clusterFromInjected(): TestCluster {
  return new TestCluster(injectedControlPlane());
}

/** A fresh admin KubeConfig for the run's control plane. */
export function kubeConfigFromInjected(): KubeConfig {
  return clusterFromInjected().kubeConfig();
}

/**
 * Server-side applies `object` (wire format, as in YAML; field manager `coffer-tests`, forcing
 * conflicts) and returns the object as stored. Creates it when absent. `resourceVersion` and
 * `managedFields` are dropped, so this never fails on a stale version.
 */
export async function applyObject<T extends KubernetesObject>(kc: KubeConfig, object: T): Promise<T> {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = object.metadata ?? {};
  const body = toClientModel({ ...object, metadata });
  return KubernetesObjectApi.makeApiClient(kc).patch(
    body,
    undefined,
    undefined,
    testFieldManager,
    true,
    PatchStrategy.ServerSideApply,
  );
}

/** Deletes `object` (by apiVersion, kind, namespace and name); a missing object is not an error. */
export async function deleteObject(kc: KubeConfig, object: KubernetesObject): Promise<void> {
  try {
    await KubernetesObjectApi.makeApiClient(kc).delete(object);
  } catch (error) {
    if (statusCodeOf(error) !== 404) throw error;
  }
}
