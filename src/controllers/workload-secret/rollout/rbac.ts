/**
 * What rollout restarts need from Kubernetes: listing the namespace's Deployments, StatefulSets
 * and DaemonSets when a restart is due (the named ones and those opting in by annotation), and a
 * merge patch of their pod template annotations. No watch: they are listed only on a change of
 * content, so no cache of every workload of the cluster is kept.
 */
import type { RbacNeed } from '../../registration.ts';

export const restartsWorkloads: readonly RbacNeed[] = ['deployments', 'statefulsets', 'daemonsets'].map(
  (resource) => ({
    apiGroup: 'apps',
    resource,
    verbs: ['list', 'patch'],
    why: 'restarts the workloads that opt in when the delivered content changes (pod template annotation)',
  }),
);
