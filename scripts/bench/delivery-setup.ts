/**
 * The workload of `npm run bench:delivery`: P projects in the service (created through the
 * service API, not as Project resources), one folder `/w<i>` with 10 keys per WorkloadSecret
 * `w-<i>` (project i mod P), and the WorkloadSecrets themselves (sources by project id, one
 * Secret target each).
 */
import { AppsV1Api } from '@kubernetes/client-node';
import type { Service, At } from './operator-setup.ts';
import { createObject, forEachLimited, randomValue } from './operator-setup.ts';

export const KEYS = 10;

/** Where WorkloadSecret `w-<i>` reads. */
export interface Folder {
  readonly index: number;
  readonly projectId: string;
  readonly secretPath: string;
}

export const folderOf = (projects: readonly string[], i: number): Folder => ({
  index: i,
  projectId: projects[i % projects.length] ?? '',
  secretPath: `/w${i}`,
});

/** Creates `count` projects with environment dev; returns their ids. */
export async function createServiceProjects(
  service: Service,
  count: number,
  prefix: string,
): Promise<string[]> {
  const ids: string[] = [];
  for (let p = 0; p < count; p += 1) {
    const created = await service.client.projects.create({
      projectName: `${prefix} ${p}`,
      slug: `${prefix}-${p}-${Date.now().toString(36)}`,
    });
    ids.push(created.id);
  }
  return ids;
}

/** Folders `/w<i>` with keys K0..K9 for `count` WorkloadSecrets. */
export function createFolders(
  service: Service,
  projects: readonly string[],
  count: number,
  concurrency: number,
) {
  return forEachLimited(count, concurrency, async (i) => {
    const folder = folderOf(projects, i);
    await service.client.folders.create({
      projectId: folder.projectId,
      environment: 'dev',
      path: '/',
      name: `w${i}`,
    });
    await service.client.secrets.batchUpdate({
      workspaceId: folder.projectId,
      environment: 'dev',
      secretPath: folder.secretPath,
      mode: 'upsert',
      secrets: Array.from({ length: KEYS }, (_, k) => ({ secretKey: `K${k}`, secretValue: randomValue() })),
    });
  });
}

/** The spec of WorkloadSecret `w-<i>`. */
export function workloadSecretSpec(folder: Folder, resyncInterval: string): Record<string, unknown> {
  return {
    connectionRef: { name: 'coffer' },
    sources: [{ projectId: folder.projectId, environment: 'dev', secretPath: folder.secretPath }],
    target: { secret: { name: `w-${folder.index}` } },
    resyncInterval,
  };
}

/** Creates WorkloadSecrets `w-0..` reading `folders`. */
export function createWorkloadSecrets(
  at: At,
  folders: readonly Folder[],
  options: { resyncInterval: string; concurrency: number },
) {
  return forEachLimited(folders.length, options.concurrency, (i) => {
    const folder = folders[i] as Folder;
    return createObject(
      at,
      'WorkloadSecret',
      `w-${folder.index}`,
      workloadSecretSpec(folder, options.resyncInterval),
    );
  });
}

/** Deployments `d-<i>` opting in (annotation) to restarts on a change of Secret `w-<i>`. */
export function createDeployments({ env, namespace }: At, indexes: readonly number[], concurrency = 32) {
  const apps = env.kc.makeApiClient(AppsV1Api);
  return forEachLimited(indexes.length, concurrency, (k) => {
    const i = indexes[k] ?? 0;
    return apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: `d-${i}`, annotations: { 'coffer.dev/reload-secrets': `w-${i}` } },
        spec: {
          selector: { matchLabels: { app: `d-${i}` } },
          template: {
            metadata: { labels: { app: `d-${i}` } },
            spec: {
              containers: [
                {
                  name: 'app',
                  image: 'registry.invalid/app:1',
                  envFrom: [{ secretRef: { name: `w-${i}` } }],
                },
              ],
            },
          },
        },
      },
    });
  });
}
