/**
 * The workloads a WorkloadSecret may restart: Deployments, StatefulSets and DaemonSets of its
 * namespace, named in `spec.rollout.workloads` or opting in with the annotation
 * `coffer.dev/reload-secrets: "<name>,<name>"` (Reloader's convention, our key) naming one of its
 * targets (the Secret or the ConfigMap).
 *
 * They are listed when a restart is due (rare: only on a change of content), so a workload
 * annotated after the WorkloadSecret was created is found without keeping every workload of the
 * cluster in memory. A restart is a JSON merge patch of two pod template annotations, nothing
 * else: `coffer.dev/restarted-at` (the time) and `coffer.dev/content-hash` (the hash that caused
 * it); the workload's controller rolls its pods as for `kubectl rollout restart`.
 */
import type { KubeRequest } from '../../../runtime/kube-request.ts';

/** The opt-in annotation on a workload: comma-separated target names. */
export const ANNOTATION_RELOAD_SECRETS = 'coffer.dev/reload-secrets';
/** Pod template annotation set by a restart: when. */
export const ANNOTATION_RESTARTED_AT = 'coffer.dev/restarted-at';
/** Pod template annotation set by a restart: the content hash that caused it. */
export const ANNOTATION_CONTENT_HASH = 'coffer.dev/content-hash';

export const workloadKinds = ['Deployment', 'StatefulSet', 'DaemonSet'] as const;
export type WorkloadKind = (typeof workloadKinds)[number];

const plurals: Readonly<Record<WorkloadKind, string>> = {
  Deployment: 'deployments',
  StatefulSet: 'statefulsets',
  DaemonSet: 'daemonsets',
};

/** A workload as listed: kind, name and its opt-in annotation. */
export interface WorkloadRef {
  readonly kind: WorkloadKind;
  readonly name: string;
  readonly reloadSecrets?: string;
  /** The content hash its pod template was last restarted for (`coffer.dev/content-hash`). */
  readonly restartedFor?: string;
}

/** Kubernetes access for restarts (an interface so the logic is testable without a cluster). */
export interface WorkloadApi {
  list(namespace: string, kind: WorkloadKind): Promise<WorkloadRef[]>;
  /** Merge-patches the pod template annotations of one workload. */
  annotateTemplate(
    target: { namespace: string; kind: WorkloadKind; name: string },
    annotations: Readonly<Record<string, string>>,
  ): Promise<void>;
}

interface Metadata {
  name?: string;
  annotations?: Record<string, string>;
}

interface Listed {
  items?: { metadata?: Metadata; spec?: { template?: { metadata?: Metadata } } }[];
}

function pathOf(namespace: string, kind: WorkloadKind, name?: string): string {
  const collection = `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/${plurals[kind]}`;
  return name === undefined ? collection : `${collection}/${encodeURIComponent(name)}`;
}

/** `WorkloadApi` over the apps/v1 API (`request`: one authenticated JSON request). */
export function appsWorkloadApi(request: (req: KubeRequest) => Promise<unknown>): WorkloadApi {
  return {
    async list(namespace, kind) {
      const listed = (await request({ method: 'GET', path: pathOf(namespace, kind) })) as Listed;
      return (listed.items ?? []).map((item) => {
        const reloadSecrets = item.metadata?.annotations?.[ANNOTATION_RELOAD_SECRETS];
        const restartedFor = item.spec?.template?.metadata?.annotations?.[ANNOTATION_CONTENT_HASH];
        return {
          kind,
          name: item.metadata?.name ?? '',
          ...(reloadSecrets ? { reloadSecrets } : {}),
          ...(restartedFor ? { restartedFor } : {}),
        };
      });
    },
    async annotateTemplate(target, annotations) {
      await request({
        method: 'PATCH',
        path: pathOf(target.namespace, target.kind, target.name),
        body: { spec: { template: { metadata: { annotations } } } },
        contentType: 'application/merge-patch+json',
      });
    },
  };
}

/** The target names a workload's opt-in annotation lists. */
export function reloadNames(annotation: string | undefined): string[] {
  return (annotation ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/**
 * The workloads to restart: those `named` (that exist) and those whose annotation names one of
 * `targets`, each once, in kind then name order; plus the named ones that do not exist.
 */
export function selectWorkloads(
  listed: readonly WorkloadRef[],
  named: readonly { kind: WorkloadKind; name: string }[],
  targets: readonly string[],
): { selected: WorkloadRef[]; missing: string[] } {
  const id = (w: { kind: string; name: string }) => `${w.kind}/${w.name}`;
  const present = new Set(listed.map(id));
  const wanted = new Set(named.map(id));
  const selected = listed.filter(
    (w) => wanted.has(id(w)) || reloadNames(w.reloadSecrets).some((name) => targets.includes(name)),
  );
  const missing = [...wanted].filter((w) => !present.has(w));
  const order = (w: WorkloadRef) => `${workloadKinds.indexOf(w.kind)}/${w.name}`;
  return { selected: selected.sort((a, b) => (order(a) < order(b) ? -1 : 1)), missing };
}
