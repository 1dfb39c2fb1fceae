// The generated CRDs on the real API server: it accepts the schemas (structural, CEL compiled
// within the cost budget), admits every sample with its defaults applied, keeps status written
// through the status subresource, and refuses each invalid object of the shared table with a
// readable message.
import { randomBytes } from 'node:crypto';
import { request, type RequestOptions } from 'node:https';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAllCrds } from '../../src/api/crd/build.ts';
import { additionalPrivilegeSpec } from '../../src/api/v1alpha1/index.ts';
import { findKind, kindDefinitions } from '../../src/controllers/registry.ts';
import { applyObject, clusterFromInjected, waitFor } from '../support/kube.ts';
import { badObjects, loadSamples, sampleSpec, type SampleObject } from '../unit/crds-cases.ts';

let kc: KubeConfig;
let namespace: string;
const suffix = randomBytes(3).toString('hex');

/** The sample placed in the test namespace; cluster-scoped ones get a unique name instead. */
function placed(object: SampleObject): SampleObject {
  const copy = structuredClone(object);
  if (copy.apiVersion === 'coffer.dev/v1alpha1' && findKind(copy.kind)?.scope === 'Cluster') {
    copy.metadata = { name: `${copy.metadata.name}-${suffix}` };
  } else {
    copy.metadata = { ...copy.metadata, namespace };
  }
  return copy;
}

function objectFor(kind: string, name: string, spec: Record<string, unknown>): SampleObject {
  return placed({ apiVersion: 'coffer.dev/v1alpha1', kind, metadata: { name }, spec });
}

/** The message of the Status the API server answered with, or a failure when it accepted. */
async function rejection(write: Promise<unknown>): Promise<string> {
  try {
    await write;
  } catch (error) {
    const body = (error as { body?: unknown }).body;
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as { message?: string } | undefined;
    return status?.message ?? String(error);
  }
  throw new Error('the API server accepted an object it should refuse');
}

/** One raw HTTPS request to the API server (JSON in and out), bypassing client-node's models. */
async function rawRequest(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const options: RequestOptions = {
    method,
    headers: { accept: 'application/json', 'content-type': 'application/apply-patch+yaml' },
  };
  await kc.applyToHTTPSOptions(options);
  const url = new URL(path, kc.getCurrentCluster()?.server);
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : undefined }),
      );
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const crdPath = (name: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;

/**
 * Server-side applies the generated CRDs as raw JSON and waits until each is served. (client-node
 * serialises CRDs through its models, which silently drop keys such as enum, default and
 * x-kubernetes-validations from plain objects, so its typed clients are not used here.)
 */
async function installGeneratedCrds(): Promise<void> {
  for (const crd of buildAllCrds(kindDefinitions)) {
    const applied = await rawRequest(
      'PATCH',
      `${crdPath(crd.metadata.name)}?fieldManager=coffer-tests&force=true`,
      crd,
    );
    if (applied.status !== 200 && applied.status !== 201) {
      throw new Error(`cannot install CRD ${crd.metadata.name}: ${JSON.stringify(applied.body)}`);
    }
  }
  const custom = kc.makeApiClient(CustomObjectsApi);
  for (const crd of buildAllCrds(kindDefinitions)) {
    await waitFor(
      () =>
        custom.listClusterCustomObject({
          group: 'coffer.dev',
          version: 'v1alpha1',
          plural: crd.spec.names.plural,
        }),
      {
        timeoutMs: 30_000,
        message: `${crd.metadata.name} to be served`,
      },
    );
  }
}

beforeAll(async () => {
  const cluster = clusterFromInjected();
  kc = cluster.kubeConfig();
  await installGeneratedCrds();
  namespace = await cluster.createNamespace();
});

describe('generated CRDs on the API server', () => {
  it.each(buildAllCrds(kindDefinitions).map((crd) => [crd.metadata.name, crd] as const))(
    '%s is stored with its schema, columns and names exactly as generated (nothing pruned)',
    async (name, crd) => {
      const stored = (await rawRequest('GET', crdPath(name))).body as typeof crd & {
        status: { conditions: { type: string; status: string }[] };
      };
      expect(stored.spec.versions).toEqual(crd.spec.versions);
      expect(stored.spec.names).toEqual(crd.spec.names);
      expect(stored.spec.scope).toBe(crd.spec.scope);
      expect(stored.status.conditions).toContainEqual(
        expect.objectContaining({ type: 'Established', status: 'True' }),
      );
    },
  );
});

describe('samples on the API server', () => {
  const samples = loadSamples();

  it.each(samples.map((s) => [`${s.file} ${s.object.kind}/${s.object.metadata.name}`, s.object] as const))(
    'accepts %s',
    async (_name, object) => {
      const stored: KubernetesObject = await applyObject<KubernetesObject>(kc, placed(object));
      expect(stored.metadata?.uid).toBeTruthy();
    },
  );

  it('applies the schema defaults (per-kind deletion policy, connection kind, batch mode)', async () => {
    const api = kc.makeApiClient(CustomObjectsApi);
    const get = async (plural: string, name: string) =>
      (await api.getNamespacedCustomObject({
        group: 'coffer.dev',
        version: 'v1alpha1',
        namespace,
        plural,
        name,
      })) as {
        spec: Record<string, unknown>;
      };
    const project = await get('projects', 'demo');
    expect(project.spec).toMatchObject({
      deletionPolicy: 'Orphan',
      managementPolicy: 'Default',
      type: 'secret-manager',
      connectionRef: { kind: 'Connection', name: 'coffer' },
    });
    const batch = await get('secretbatches', 'demo-app-config');
    expect(batch.spec).toMatchObject({ deletionPolicy: 'Delete', mode: 'upsert', createFolders: true });
    const auth = await get('identityauths', 'demo-ci-kubernetes');
    expect(auth.spec).toMatchObject({
      accessTokenNumUsesLimit: 0,
      accessTokenTrustedIps: ['0.0.0.0/0', '::/0'],
    });
  });

  it('keeps a typical status written through the status subresource', async () => {
    const api = kc.makeApiClient(CustomObjectsApi);
    const ref = { group: 'coffer.dev', version: 'v1alpha1', namespace, plural: 'projects', name: 'demo' };
    const current = (await api.getNamespacedCustomObject(ref)) as Record<string, unknown>;
    const status = {
      observedGeneration: 1,
      id: '4b3c8a52-8f0e-4d4e-9d43-1f0c7a1e2b3c',
      slug: 'demo-project',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Available',
          message: '',
          lastTransitionTime: '2025-01-01T00:00:00Z',
          observedGeneration: 1,
        },
        {
          type: 'Synced',
          status: 'True',
          reason: 'ReconcileSuccess',
          lastTransitionTime: '2025-01-01T00:00:00Z',
        },
      ],
      environments: [{ slug: 'dev', name: 'Development', id: 'env-1', position: 1 }],
    };
    await api.replaceNamespacedCustomObjectStatus({ ...ref, body: { ...current, status } });
    const stored = (await api.getNamespacedCustomObject(ref)) as { status: unknown };
    expect(stored.status).toEqual(status);
  });
});

describe('invalid objects on the API server', () => {
  it.each(badObjects.map((c, i) => [c.reason, c, i] as const))(
    'refuses: %s',
    async (_reason, testCase, index) => {
      const name = `bad-${index}`;
      if (testCase.updatedSpec) {
        await applyObject(kc, objectFor(testCase.kind, name, testCase.spec));
        const message = await rejection(
          applyObject(kc, objectFor(testCase.kind, name, testCase.updatedSpec)),
        );
        expect(message).toContain(testCase.apiMessage);
        return;
      }
      const message = await rejection(applyObject(kc, objectFor(testCase.kind, name, testCase.spec)));
      expect(message).toContain(testCase.apiMessage);
    },
  );

  it('keeps action as a string or a list; its shape is checked by zod, not the API server', async () => {
    const withAction = (action: unknown) => {
      const spec = sampleSpec('AdditionalPrivilege');
      ((spec['permissions'] as Record<string, unknown>[])[0] as Record<string, unknown>)['action'] = action;
      return spec;
    };
    for (const [name, action] of [
      ['action-one', 'read'],
      ['action-many', ['read', 'edit']],
      ['action-number', 42],
    ] as const) {
      const stored = await applyObject<SampleObject>(
        kc,
        objectFor('AdditionalPrivilege', name, withAction(action)),
      );
      expect((stored.spec?.['permissions'] as { action: unknown }[])[0]?.action).toEqual(action);
    }
    // A structural schema cannot type a string-or-list node, so CEL cannot check it; zod can.
    const parsed = additionalPrivilegeSpec.safeParse(withAction(42));
    expect(parsed.success).toBe(false);
  });

  it('refuses an unknown field (the schema is structural, so nothing is silently dropped)', async () => {
    const sample = loadSamples().find((s) => s.object.kind === 'Project')?.object;
    const spec = { ...sample?.spec, slugg: 'typo-field' };
    const message = await rejection(applyObject(kc, objectFor('Project', 'unknown-field', spec)));
    expect(message).toContain('.spec.slugg: field not declared in schema');
  });
});
