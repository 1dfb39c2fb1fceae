import { describe, expect, it } from 'vitest';
import { findKind } from '../api/v1alpha1/index.ts';
import { kindRegistry } from '../controllers/registry.ts';
import { blockedResources, resourceKey } from './blocked.ts';
import { planSamples, type WireObject } from './samples.ts';

const url = 'http://127.0.0.1:4321';

describe('planSamples (config/samples)', () => {
  const plan = planSamples('sandbox-ns', url);

  it('applies the Bootstrap first, with a fresh password instead of the placeholder', () => {
    const [secret, bootstrap] = plan.bootstrap;
    expect(secret).toMatchObject({
      kind: 'Secret',
      metadata: { name: 'coffer-bootstrap', namespace: 'sandbox-ns' },
    });
    const password = (secret?.['stringData'] as Record<string, string>)['password'];
    expect(password).not.toBe('change-me-sandbox-only');
    expect(password?.length).toBeGreaterThanOrEqual(20);
    expect(bootstrap).toBe(plan.bootstrapObject);
    expect(bootstrap?.spec).toMatchObject({ url, createConnection: true });
    expect(planSamples('sandbox-ns', url).bootstrap[0]?.['stringData']).not.toEqual(secret?.['stringData']);
  });

  it('points every connection at the devserver and scopes the ClusterConnection to the namespace', () => {
    const clusterConnection = plan.samples.find((o) => o.kind === 'ClusterConnection');
    expect(clusterConnection?.metadata.namespace).toBeUndefined();
    expect(clusterConnection?.spec).toMatchObject({
      url,
      auth: { token: { secretRef: { namespace: 'sandbox-ns', name: 'coffer-admin' } } },
      allowedNamespaces: { names: ['sandbox-ns'] },
    });
  });

  it('puts namespaced objects in the namespace and leaves cluster-scoped ones alone', () => {
    for (const obj of [...plan.bootstrap, ...plan.samples]) {
      const clusterScoped = findKind(obj.kind)?.scope === 'Cluster' || obj.kind === 'ClusterRoleBinding';
      expect(obj.metadata.namespace, `${obj.kind}/${obj.metadata.name}`).toBe(
        clusterScoped ? undefined : 'sandbox-ns',
      );
    }
  });

  it('names the sandbox namespace where the samples name theirs (Kubernetes auth, token reviewer)', () => {
    const binding = plan.samples.find((o) => o.kind === 'ClusterRoleBinding') as
      (WireObject & { subjects: { namespace?: string }[] }) | undefined;
    expect(binding?.subjects.map((s) => s.namespace)).toEqual(['sandbox-ns']);
    const auth = plan.samples.find((o) => o.kind === 'IdentityAuth');
    expect(auth?.spec?.['kubernetes']).toMatchObject({ allowedNamespaces: ['sandbox-ns'] });
    // No issued workload token: nothing publishes a credential of demo-ci into a Secret.
    expect(auth?.spec?.['credentials']).toBeUndefined();
  });

  it('waits for the Connection the Bootstrap produces and for every coffer.dev sample', () => {
    const keys = plan.resources.map(resourceKey);
    expect(keys.slice(0, 2)).toEqual(['Bootstrap/sandbox-ns/coffer', 'Connection/sandbox-ns/coffer']);
    expect(keys).toContain('ProjectTemplate//web-service');
    expect(keys).toContain('SecretBatch/sandbox-ns/demo-app-config');
    expect(keys.filter((k) => k.startsWith('Secret/'))).toEqual([]);
  });
});

describe('planSamples: the DynamicSecret sample', () => {
  const postgres = { host: '127.0.0.1', port: 54321, user: 'admin', password: 'pw-not-real', database: 'postgres', dir: '/tmp/x', stop: () => undefined } as const; // prettier-ignore
  const leaseSources = (p: ReturnType<typeof planSamples>) =>
    (
      p.samples.find((o) => o.kind === 'WorkloadSecret')?.spec?.['sources'] as {
        dynamicSecret?: { name: string };
      }[]
    )
      .filter((source) => source.dynamicSecret)
      .map((source) => source.dynamicSecret?.name);

  it('points the sqlDatabase provider at the sandbox PostgreSQL and fills its admin password Secret', () => {
    const p = planSamples('sandbox-ns', url, { dynamicSecrets: { provider: 'sqlDatabase', postgres } });
    const ds = p.samples.find((o) => o.kind === 'DynamicSecret');
    expect(ds?.metadata).toMatchObject({ name: 'demo-db', namespace: 'sandbox-ns' });
    expect(ds?.spec).toMatchObject({
      name: 'demo-app',
      provider: { sqlDatabase: { host: '127.0.0.1', port: 54321, username: 'admin', database: 'postgres' } },
    });
    const ref = (
      ds?.spec?.['provider'] as { sqlDatabase: { passwordSecretRef: { name: string; key: string } } }
    ).sqlDatabase.passwordSecretRef;
    const secret = p.samples.find((o) => o.kind === 'Secret' && o.metadata.name === ref.name);
    expect(secret?.['stringData']).toEqual({ [ref.key]: 'pw-not-real' });
    expect(leaseSources(p)).toEqual(['demo-app']);
    expect(p.resources.map(resourceKey)).toContain('DynamicSecret/sandbox-ns/demo-db');
  });

  it('applies the Kubernetes variant instead, on the sandbox cluster, its namespace and RBAC localised', () => {
    const backend = { provider: 'kubernetes', url: 'https://127.0.0.1:6443', ca: 'PEM' } as const;
    const p = planSamples('sandbox-ns', url, { dynamicSecrets: backend });
    const dynamic = p.samples.filter((o) => o.kind === 'DynamicSecret');
    expect(dynamic.map((o) => o.metadata.name)).toEqual(['demo-app-token']);
    expect(dynamic[0]?.spec).toMatchObject({
      name: 'demo-app',
      provider: {
        kubernetes: { url: 'https://127.0.0.1:6443', ca: 'PEM', sslEnabled: true, namespace: 'sandbox-ns' },
      },
    });
    const binding = p.samples.find((o) => o.kind === 'RoleBinding') as
      (WireObject & { subjects: { namespace?: string }[] }) | undefined;
    expect(binding?.subjects.map((s) => s.namespace)).toEqual(['sandbox-ns']);
    expect(p.samples.find((o) => o.metadata.name === 'demo-db-admin')).toBeUndefined();
    expect(leaseSources(p)).toEqual(['demo-app']);
  });

  it('leaves the sample and the lease sources out when nothing issues leases', () => {
    const p = planSamples('sandbox-ns', url);
    expect(p.samples.filter((o) => o.kind === 'DynamicSecret')).toEqual([]);
    expect(leaseSources(p)).toEqual([]);
  });
});

describe('blockedResources', () => {
  const plan = planSamples('ns', url);
  const objects = [...plan.bootstrap, ...plan.samples];

  it('blocks nothing when every kind has a controller', () => {
    const all = new Set(plan.resources.map((r) => r.kind));
    expect(blockedResources(objects, all, kindRegistry)).toEqual(new Set());
  });

  it('blocks the kinds without a controller and whatever depends on them, transitively', () => {
    const registered = new Set(plan.resources.map((r) => r.kind).filter((k) => k !== 'Project'));
    const blocked = blockedResources(objects, registered, kindRegistry);
    // Everything in the demo project waits on the Project; the template and connections do not.
    expect(blocked).toContain('Project/ns/demo');
    expect(blocked).toContain('ProjectRole/ns/secret-reader');
    expect(blocked).toContain('Identity/ns/demo-ci');
    expect(blocked).toContain('IdentityAuth/ns/demo-ci-kubernetes');
    expect(blocked).not.toContain('ProjectTemplate//web-service');
    expect(blocked).not.toContain('Bootstrap/ns/coffer');
    expect(blocked).not.toContain('ClusterConnection//coffer');
  });
});
