// The WorkloadSecret scenario of test/integration/rbac.test.ts: a WorkloadSecret delivers the
// demo project's dev:/ into a Secret and, on a change in the service, restarts a Deployment that
// opts in by annotation — listing Deployments, StatefulSets and DaemonSets and patching the
// Deployment's pod template (apps rules of the chart).
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { createServiceClient, staticToken } from '../../src/client/index.ts';
import { waitFor } from '../support/kube.ts';

/** What the scenario needs of a run (see rbac-scenarios.ts). */
export interface WorkloadSecretRun {
  readonly admin: KubeConfig;
  readonly namespace: string;
  readonly devserver: { readonly url: string };
  readonly projectId?: string;
  readonly token?: string;
}

async function putValue(run: WorkloadSecretRun, value: string): Promise<void> {
  const client = createServiceClient({ baseUrl: run.devserver.url, auth: staticToken(run.token ?? '') });
  try {
    await client.secrets.batchUpdate({
      workspaceId: run.projectId ?? '',
      environment: 'dev',
      secretPath: '/',
      mode: 'upsert',
      secrets: [{ secretKey: 'RESTART_PROBE', secretValue: value }],
    });
  } finally {
    await client.close();
  }
}

export async function workloadSecretRestart(run: WorkloadSecretRun, timeoutMs: number): Promise<void> {
  const { namespace } = run;
  const apps = run.admin.makeApiClient(AppsV1Api);
  const labels = { app: 'rbac-web' };
  await apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: 'rbac-web', annotations: { 'coffer.dev/reload-secrets': 'rbac-env' } },
      spec: {
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1' }] },
        },
      },
    },
  });
  await putValue(run, 'first');
  await run.admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: 'coffer.dev',
    version: 'v1alpha1',
    plural: 'workloadsecrets',
    namespace,
    body: {
      apiVersion: 'coffer.dev/v1alpha1',
      kind: 'WorkloadSecret',
      metadata: { name: 'rbac-env', namespace },
      spec: {
        connectionRef: { name: 'coffer' },
        sources: [{ projectRef: { name: 'demo' }, environment: 'dev' }],
        target: { secret: {} },
        rollout: { debounce: '0s' },
      },
    },
  });
  const core = run.admin.makeApiClient(CoreV1Api);
  await waitFor(
    async () => {
      const secret = await core.readNamespacedSecret({ namespace, name: 'rbac-env' });
      return secret.data?.['RESTART_PROBE'] !== undefined;
    },
    { timeoutMs, message: 'WorkloadSecret rbac-env to deliver its Secret' },
  );
  await putValue(run, 'second');
  await waitFor(
    async () => {
      const web = await apps.readNamespacedDeployment({ namespace, name: 'rbac-web' });
      return web.spec?.template?.metadata?.annotations?.['coffer.dev/restarted-at'] !== undefined;
    },
    { timeoutMs, message: 'the annotated Deployment to be restarted' },
  );
}
