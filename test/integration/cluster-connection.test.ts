// ClusterConnection against the real control plane and a devserver: Ready with Secrets in an
// explicit namespace, and namespace admission (by name, by label selector, refused), following
// changes of namespace labels and of allowedNamespaces.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusCodeOf } from '../support/kube.ts';
import {
  connectionProbeKind,
  connectionProbeSpec,
  startOperatorHarness,
  type OperatorHarness,
} from '../support/operator.ts';

const tenantLabel = 'coffer.dev/test-tenant';
let h: OperatorHarness;
let byName: string;
let bySelector: string;
let refused: string;

beforeAll(async () => {
  h = await startOperatorHarness({
    connection: false,
    extraNamespaces: [{ labels: { [tenantLabel]: 'yes' } }, {}],
    // Long waiting requeue: only watches can make the admission changes below visible in time.
    operator: { kinds: [connectionProbeKind], waitRequeueMs: 600_000 },
  });
  [byName, bySelector, refused] = h.namespaces as [string, string, string];
  await h.createSecret('shared-token', { token: h.admin.token }, { namespace: byName });
  await h.create('ClusterConnection', 'shared', {
    url: h.url,
    auth: { token: { secretRef: { name: 'shared-token', namespace: byName, key: 'token' } } },
    allowedNamespaces: { names: [byName], selector: { matchLabels: { [tenantLabel]: 'yes' } } },
  });
});

afterAll(async () => {
  // The ClusterConnection waits for the resources using it: they go first.
  for (const namespace of h?.namespaces ?? []) await h.delete('Project', 'user', { namespace });
  for (const namespace of h?.namespaces ?? []) await h.waitForDeletion('Project', 'user', { namespace });
  await h?.stop();
});

const ref = { kind: 'ClusterConnection', name: 'shared' };

describe('ClusterConnection', () => {
  it('is Ready with a token Secret from an explicit namespace', async () => {
    const conn = await h.waitForReady('ClusterConnection', 'shared');
    expect(conn.status?.organizationId).toBe(h.admin.organizationId);
    expect(conn.metadata.namespace).toBeUndefined();
  });

  it('admits namespaces by name and by label selector and refuses the others', async () => {
    for (const namespace of h.namespaces)
      await h.create('Project', 'user', connectionProbeSpec(ref), { namespace });
    await h.waitForReady('Project', 'user', { namespace: byName });
    await h.waitForReady('Project', 'user', { namespace: bySelector });
    const denied = await h.waitForCondition(
      'Project',
      'user',
      { type: 'Synced', status: 'False', reason: 'NamespaceNotAllowed' },
      { namespace: refused },
    );
    expect(denied.status?.conditions?.find((c) => c.type === 'Synced')?.message).toContain(
      `ClusterConnection shared does not allow namespace ${refused}`,
    );
  });

  it('admits a namespace once it gets a matching label', async () => {
    await h.kubeConfig
      .makeApiClient(CoreV1Api)
      .patchNamespace(
        { name: refused, body: { metadata: { labels: { [tenantLabel]: 'yes' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    await h.waitForReady('Project', 'user', { namespace: refused });
  });

  it('refuses a namespace dropped from allowedNamespaces', async () => {
    await h.patch('ClusterConnection', 'shared', {
      spec: { allowedNamespaces: { names: null, selector: { matchLabels: { [tenantLabel]: 'yes' } } } },
    });
    await h.waitForCondition(
      'Project',
      'user',
      { type: 'Synced', status: 'False', reason: 'NamespaceNotAllowed' },
      { namespace: byName },
    );
    await h.waitForReady('Project', 'user', { namespace: bySelector });
  });

  it('is rejected by the API server with an empty allowedNamespaces', async () => {
    const error = await h
      .create('ClusterConnection', 'invalid', {
        url: h.url,
        auth: { token: { secretRef: { name: 's', namespace: byName, key: 'token' } } },
        allowedNamespaces: {},
      })
      .catch((e: unknown) => e);
    expect(statusCodeOf(error)).toBe(422);
    expect(String((error as { body?: unknown }).body)).toContain(
      'allowedNamespaces: set names, selector or both',
    );
  });
});
