// Smoke tests of the test control plane: a real kube-apiserver + etcd serve CRDs with a status
// subresource and CEL validation, watches, optimistic concurrency, and RBAC for the restricted
// identities the harness hands out.
import { existsSync } from 'node:fs';
import {
  AuthenticationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  VersionApi,
  Watch,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../support/control-plane.ts';
import { applyObject, clusterFromInjected, deleteObject, statusCodeOf, waitFor } from '../support/kube.ts';

const group = 'smoke.coffer.dev';
const version = 'v1alpha1';
const plural = 'widgets';
const celMessage = 'minReplicas must not exceed maxReplicas';

interface Widget extends KubernetesObject {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  spec: { minReplicas: number; maxReplicas: number };
  status?: { observedReplicas?: number };
}

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural, singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: version,
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['minReplicas', 'maxReplicas'],
                properties: {
                  minReplicas: { type: 'integer', minimum: 0 },
                  maxReplicas: { type: 'integer' },
                },
                'x-kubernetes-validations': [
                  { rule: 'self.minReplicas <= self.maxReplicas', message: celMessage },
                ],
              },
              status: { type: 'object', properties: { observedReplicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

function widget(namespace: string, name: string, minReplicas = 1, maxReplicas = 3): Widget {
  return {
    apiVersion: `${group}/${version}`,
    kind: 'Widget',
    metadata: { name, namespace },
    spec: { minReplicas, maxReplicas },
  };
}

/** The rejection of `promise`: its HTTP status and body text. */
async function rejection(promise: Promise<unknown>): Promise<{ code: number | undefined; body: string }> {
  try {
    await promise;
  } catch (error) {
    const body = (error as { body?: unknown }).body;
    return { code: statusCodeOf(error), body: typeof body === 'string' ? body : JSON.stringify(body) };
  }
  throw new Error('expected the request to be rejected, but it succeeded');
}

describe('the run control plane', () => {
  const cluster = clusterFromInjected();
  let kc: KubeConfig;
  let custom: CustomObjectsApi;
  let namespace: string;
  const ref = (name: string) => ({ group, version, plural, namespace, name });

  beforeAll(async () => {
    kc = cluster.kubeConfig();
    custom = kc.makeApiClient(CustomObjectsApi);
    await cluster.installCRDs([widgetCrd]);
    namespace = await cluster.createNamespace();
  });

  it('is the kube-apiserver version the harness reported', async () => {
    const info = await kc.makeApiClient(VersionApi).getCode();
    expect(info.gitVersion).toBe(cluster.info.versions.kubeApiserver);
  });

  it('creates, gets and lists a custom resource', async () => {
    await custom.createNamespacedCustomObject({
      group,
      version,
      plural,
      namespace,
      body: widget(namespace, 'alpha'),
    });
    const got = (await custom.getNamespacedCustomObject(ref('alpha'))) as Widget;
    expect(got.spec).toEqual({ minReplicas: 1, maxReplicas: 3 });
    const list = (await custom.listNamespacedCustomObject({ group, version, plural, namespace })) as {
      items: Widget[];
    };
    expect(list.items.map((w) => w.metadata.name)).toContain('alpha');
  });

  it('streams watch events for creation and deletion', async () => {
    const list = (await custom.listNamespacedCustomObject({ group, version, plural, namespace })) as {
      metadata: { resourceVersion: string };
    };
    const events: string[] = [];
    const watch = await new Watch(kc).watch(
      `/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
      { resourceVersion: list.metadata.resourceVersion },
      (type: string, object: Widget) => events.push(`${type} ${object.metadata.name}`),
      () => undefined,
    );
    try {
      await applyObject(kc, widget(namespace, 'watched'));
      await waitFor(() => events.includes('ADDED watched'), { message: 'ADDED event' });
      await deleteObject(kc, widget(namespace, 'watched'));
      await waitFor(() => events.includes('DELETED watched'), { message: 'DELETED event' });
    } finally {
      watch.abort();
    }
  });

  it('updates status only through the status subresource', async () => {
    const created = await applyObject(kc, widget(namespace, 'status'));
    const withStatus = {
      ...created,
      status: { observedReplicas: 2 },
      spec: { minReplicas: 0, maxReplicas: 9 },
    };
    const afterStatus = (await custom.replaceNamespacedCustomObjectStatus({
      ...ref('status'),
      body: withStatus,
    })) as Widget;
    expect(afterStatus.status).toEqual({ observedReplicas: 2 });
    expect(afterStatus.spec).toEqual({ minReplicas: 1, maxReplicas: 3 }); // spec ignored by /status

    const mainUpdate = { ...afterStatus, status: { observedReplicas: 7 } };
    const afterMain = (await custom.replaceNamespacedCustomObject({
      ...ref('status'),
      body: mainUpdate,
    })) as Widget;
    expect(afterMain.status).toEqual({ observedReplicas: 2 }); // status ignored by the main resource
  });

  it('rejects an object that breaks the CEL rule, with the rule message', async () => {
    const bad = widget(namespace, 'bad', 5, 1);
    const { code, body } = await rejection(
      custom.createNamespacedCustomObject({ group, version, plural, namespace, body: bad }),
    );
    expect(code).toBe(422);
    expect(body).toContain(celMessage);
  });

  it('answers 409 to an update with a stale resourceVersion', async () => {
    const original = await applyObject(kc, widget(namespace, 'conflict'));
    await custom.replaceNamespacedCustomObject({
      ...ref('conflict'),
      body: { ...original, spec: { minReplicas: 2, maxReplicas: 3 } },
    });
    const stale = { ...original, spec: { minReplicas: 3, maxReplicas: 3 } };
    const { code } = await rejection(
      custom.replaceNamespacedCustomObject({ ...ref('conflict'), body: stale }),
    );
    expect(code).toBe(409);
  });
});

describe('restricted identities from the harness', () => {
  const cluster = clusterFromInjected();
  let namespace: string;

  const grantConfigMapReaders = (subject: { kind: string; name: string; namespace?: string }) =>
    Promise.all([
      applyObject(cluster.kubeConfig(), {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'configmap-reader', namespace },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
      }),
      applyObject(cluster.kubeConfig(), {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: `read-${subject.name}`, namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
        subjects: [
          {
            ...subject,
            ...(subject.kind === 'ServiceAccount' ? {} : { apiGroup: 'rbac.authorization.k8s.io' }),
          },
        ],
      }),
    ]);

  beforeAll(async () => {
    namespace = await cluster.createNamespace();
  });

  it('gives a user without bindings 403, and access once a RoleBinding names its group', async () => {
    const jane = await cluster.clientForUser('jane', ['testers']);
    const review = await jane.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo?.username).toBe('jane');
    expect(review.status?.userInfo?.groups).toContain('testers');

    const core = jane.makeApiClient(CoreV1Api);
    expect((await rejection(core.listNamespacedConfigMap({ namespace }))).code).toBe(403);
    await grantConfigMapReaders({ kind: 'Group', name: 'testers' });
    await waitFor(() => core.listNamespacedConfigMap({ namespace }), { message: 'RBAC to admit jane' });
    expect((await rejection(core.listNamespacedSecret({ namespace }))).code).toBe(403);
  });

  it('authenticates a service account with a TokenRequest token', async () => {
    const robot = await cluster.clientForServiceAccount(namespace, 'robot');
    const review = await robot.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo?.username).toBe(`system:serviceaccount:${namespace}:robot`);

    const core = robot.makeApiClient(CoreV1Api);
    expect((await rejection(core.listNamespacedConfigMap({ namespace }))).code).toBe(403);
    await grantConfigMapReaders({ kind: 'ServiceAccount', name: 'robot', namespace });
    await waitFor(() => core.listNamespacedConfigMap({ namespace }), { message: 'RBAC to admit the robot' });
  });
});

describe('a standalone control plane', () => {
  let plane: ControlPlane | undefined;

  beforeAll(async () => {
    plane = await startControlPlane();
  });

  afterAll(async () => {
    await plane?.stop();
  });

  it('keeps its port and data across restartApiServer(), and cleans up on stop()', async () => {
    if (!plane) throw new Error('control plane not started');
    const namespace = await plane.createNamespace();
    const server = plane.server;
    await plane.restartApiServer();
    expect(plane.server).toBe(server);
    const core = plane.kubeConfig().makeApiClient(CoreV1Api);
    const read = await core.readNamespace({ name: namespace });
    expect(read.metadata?.name).toBe(namespace);

    await plane.stop();
    expect(existsSync(plane.dir)).toBe(false);
    await expect(core.readNamespace({ name: namespace })).rejects.toThrow();
  });
});
