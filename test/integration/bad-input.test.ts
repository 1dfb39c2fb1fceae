// Bad input: a table of invalid manifests across the kinds. Each is either refused by the API
// server with a readable message (the CRD schema and its CEL rules), or accepted there and then
// reported by the operator with a precise Synced=False reason. Meanwhile the operator keeps
// serving: a valid Project created alongside becomes Ready, and so does one created after.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKind, group, version } from '../../src/api/v1alpha1/index.ts';
import { startOperatorHarness, type OperatorHarness } from '../support/operator.ts';
import { sampleSpec } from '../unit/crds-cases.ts';

type Spec = Record<string, unknown>;

/** One case of bad-input-cases.yaml (see its header). */
interface Refused {
  readonly kind: string;
  readonly label: string;
  readonly message: string;
  readonly set?: Record<string, unknown>;
  readonly unset?: readonly string[];
  readonly update?: Spec;
  readonly name?: string;
  readonly strict?: boolean;
}

const suffix = randomBytes(3).toString('hex');
/** A secret of the project "alongside" whose value is not well-formed Unicode. */
const LONE_KEY = 'LONE_SURROGATE';
const long = (n: number, c = 'a') => c.repeat(n);

/** `{repeat: s, times: n}` → s repeated n times; anything else as is. */
function expand(value: unknown): unknown {
  const r = value as { repeat?: unknown; times?: unknown } | null;
  if (r && typeof r.repeat === 'string' && typeof r.times === 'number') return r.repeat.repeat(r.times);
  return value;
}

/** The parent object of a dotted path in `spec` and the last segment. */
function parentOf(spec: Spec, path: string): [Record<string, unknown>, string] {
  const segments = path.split('.');
  const last = segments.pop() as string;
  let node: Record<string, unknown> = spec;
  for (const segment of segments) node = node[segment] as Record<string, unknown>;
  return [node, last];
}

/** The sample spec of `kind`, changed by `edit`. */
function variant(kind: string, edit: (spec: Spec) => void): Spec {
  const spec = sampleSpec(kind);
  edit(spec);
  return spec;
}

/** The invalid spec of a case. */
function specOf(c: Refused): Spec {
  return variant(c.kind, (spec) => {
    for (const [path, value] of Object.entries(c.set ?? {})) {
      const [parent, key] = parentOf(spec, path);
      parent[key] = expand(value);
    }
    for (const path of c.unset ?? []) {
      const [parent, key] = parentOf(spec, path);
      delete parent[key];
    }
  });
}

const tableFile = join(import.meta.dirname, 'bad-input-cases.yaml');
const allRefused: Refused[] = [
  ...(parse(readFileSync(tableFile, 'utf8')) as Refused[]),
  // Oversized as a whole: every value is within bounds, the object is not (etcd keeps at most 1.5 MiB).
  {
    kind: 'SecretBatch',
    label: '500 values of 8 KiB (a 4 MB object)',
    set: { secrets: Array.from({ length: 500 }, (_, i) => ({ key: `K${i}`, value: long(8192) })) },
    message: 'too large',
  },
];

let h: OperatorHarness;
let custom: CustomObjectsApi;

/** Creates the object as raw JSON (strict field validation on request); resolves the API error message. */
async function createRaw(kind: string, name: string, spec: Spec, strict = false): Promise<void> {
  const definition = findKind(kind);
  if (!definition) throw new Error(`unknown kind ${kind}`);
  const namespaced = definition.scope === 'Namespaced';
  const body = {
    apiVersion: `${group}/${version}`,
    kind,
    metadata: namespaced ? { name, namespace: h.namespace } : { name: `${name}-${suffix}` },
    spec,
  };
  const at = {
    group,
    version,
    plural: definition.plural,
    body,
    ...(strict ? { fieldValidation: 'Strict' } : {}),
  };
  if (namespaced) await custom.createNamespacedCustomObject({ ...at, namespace: h.namespace });
  else await custom.createClusterCustomObject(at);
}

/** The message of the API server's refusal; fails when it accepted. */
async function refusal(write: Promise<unknown>): Promise<string> {
  try {
    await write;
  } catch (error) {
    const body = (error as { body?: unknown }).body;
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as { message?: string } | undefined;
    return status?.message ?? String(error);
  }
  throw new Error('the API server accepted an object it should refuse');
}

beforeAll(async () => {
  h = await startOperatorHarness({ logLevel: 'info' });
  custom = h.kubeConfig.makeApiClient(CustomObjectsApi);
  await h.create('Project', 'alongside', { ...sampleSpec('Project'), slug: `alongside-${suffix}` });
});

afterAll(async () => {
  await h?.stop();
});

/** Accepted by the API server, then reported by the operator with a precise Synced=False reason. */
interface Reported {
  readonly label: string;
  readonly kind: string;
  readonly name: string;
  /** Built when the harness runs (some specs need its URL). */
  readonly spec: () => Spec;
  readonly reason: string;
  /** Text the Synced message must contain. */
  readonly message: string;
  /** A WorkloadSecret's target Secret (named after it) that must not have been written. */
  readonly writesNothing?: true;
}

const project = (name: string, edit: (spec: Spec) => void) => (): Spec =>
  variant('Project', (s) => {
    s['slug'] = `${name}-${suffix}`;
    edit(s);
  });

function reportedCases(): Reported[] {
  const viaConnection = (name: string, url?: string) => (): Spec => ({
    ...sampleSpec('Connection'),
    url: url ?? h.url,
    auth: { token: { secretRef: { name, key: 'token' } } },
  });
  const role =
    (projectName: string, slug: string, edit: (spec: Spec) => void = () => undefined) =>
    (): Spec =>
      variant('ProjectRole', (s) => {
        Object.assign(s, { projectRef: { name: projectName }, slug });
        edit(s);
      });
  const batch =
    (edit: (spec: Spec) => void): (() => Spec) =>
    () => {
      const spec: Spec = {
        connectionRef: { name: 'coffer' },
        projectRef: { name: 'alongside' },
        environment: 'dev',
      };
      edit(spec);
      return spec;
    };
  const workload =
    (edit: (spec: Spec) => void = () => undefined): (() => Spec) =>
    () => {
      const spec: Spec = {
        connectionRef: { name: 'coffer' },
        sources: [{ projectRef: { name: 'alongside' }, environment: 'dev', include: [LONE_KEY] }],
        target: { secret: {} },
      };
      edit(spec);
      return spec;
    };
  return [
    {
      // The CRD's key pattern lets it through; the API server refuses keys starting with "..".
      label: 'WorkloadSecret delivering the key ..data',
      kind: 'WorkloadSecret',
      name: 'dotdot-key',
      spec: workload((s) => (s['template'] = { data: { '..data': 'x' } })),
      reason: 'InvalidKey',
      message: '"..data"',
      writesNothing: true,
    },
    {
      label: 'WorkloadSecret of type kubernetes.io/tls without tls.crt and tls.key',
      kind: 'WorkloadSecret',
      name: 'tls-no-keys',
      spec: workload((s) => {
        s['target'] = { secret: { type: 'kubernetes.io/tls' } };
        s['template'] = { data: { 'ca.crt': 'x' } };
      }),
      reason: 'InvalidSpec',
      message: 'tls.crt and tls.key',
      writesNothing: true,
    },
    {
      // UTF-8 cannot hold it: it would be delivered as U+FFFD, a value changed in transit.
      label: 'WorkloadSecret of a value holding a lone UTF-16 surrogate',
      kind: 'WorkloadSecret',
      name: 'lone-surrogate',
      spec: workload(),
      reason: 'InvalidValue',
      message: `"${LONE_KEY}"`,
      writesNothing: true,
    },
    {
      // The CRD's pattern (RE2: \s is ASCII whitespace) lets a no-break space through; the service's rule does not.
      label: 'SecretBatch key with a no-break space',
      kind: 'SecretBatch',
      name: 'nbsp-key',
      spec: batch((s) => (s['secrets'] = [{ key: 'API\u00a0KEY', value: 'x' }])),
      reason: 'InvalidSpec',
      message: 'spec.secrets[0].key',
    },
    {
      label: 'SecretBatch from a Secret that does not exist',
      kind: 'SecretBatch',
      name: 'no-source',
      spec: batch((s) => (s['fromSecret'] = { name: 'no-such-source' })),
      reason: 'SecretNotFound',
      message: 'no-such-source',
    },
    {
      label: 'Identity with an organization role the service does not have',
      kind: 'Identity',
      name: 'unknown-role',
      spec: () => ({
        connectionRef: { name: 'coffer' },
        name: `unknown-role-${suffix}`,
        role: 'no-such-role',
      }),
      reason: 'NotFound',
      message: 'no-such-role',
    },
    {
      label: 'Project through a ClusterConnection that does not admit the namespace',
      kind: 'Project',
      name: 'via-forbidden',
      spec: project(
        'forbidden',
        (s) => (s['connectionRef'] = { kind: 'ClusterConnection', name: `forbidden-${suffix}` }),
      ),
      reason: 'NamespaceNotAllowed',
      message: `ClusterConnection forbidden-${suffix} does not allow namespace`,
    },
    {
      label: 'Project through a Connection that does not exist',
      kind: 'Project',
      name: 'via-missing',
      spec: project('missing', (s) => (s['connectionRef'] = { name: 'no-such-connection' })),
      reason: 'ReferenceNotReady',
      message: 'Connection no-such-connection',
    },
    {
      label: 'Project whose name is only spaces (the service trims it to nothing)',
      kind: 'Project',
      name: 'blank-name',
      spec: project('blank', (s) => (s['name'] = '   ')),
      reason: 'Rejected',
      message: 'projectName',
    },
    {
      label: 'Project from a template the service does not have',
      kind: 'Project',
      name: 'no-template',
      spec: project('notemplate', (s) => (s['template'] = 'no-such-template')),
      reason: 'NotFound',
      message: 'no-such-template',
    },
    {
      label: 'ProjectRole with a numeric action (the CRD leaves action untyped)',
      kind: 'ProjectRole',
      name: 'numeric-action',
      spec: role(
        'alongside',
        'numeric-action',
        (s) => ((s['permissions'] as Spec[])[0] = { subject: 'secrets', action: 42 }),
      ),
      reason: 'InvalidSpec',
      message: 'spec.permissions[0].action',
    },
    {
      label: 'ProjectRole of a Project that does not exist',
      kind: 'ProjectRole',
      name: 'no-project',
      spec: role('no-such-project', 'no-project'),
      reason: 'ReferenceNotReady',
      message: 'no-such-project',
    },
    {
      label: 'Connection whose token Secret does not exist',
      kind: 'Connection',
      name: 'no-secret',
      spec: viaConnection('no-such-secret'),
      reason: 'CredentialsNotFound',
      message: 'no-such-secret',
    },
    {
      label: 'Connection with a token the service rejects',
      kind: 'Connection',
      name: 'bad-token',
      spec: viaConnection('bad-token'),
      reason: 'InvalidCredentials',
      message: '',
    },
    {
      label: 'Connection to a port where nothing listens',
      kind: 'Connection',
      name: 'nowhere',
      spec: viaConnection('coffer-admin-token', 'http://127.0.0.1:9'),
      reason: 'ServiceUnreachable',
      message: '',
    },
  ];
}

describe('bad input reported by the operator', () => {
  beforeAll(async () => {
    await h.createSecret('bad-token', { token: 'not-a-valid-token' });
    await h.create('ClusterConnection', `forbidden-${suffix}`, {
      url: h.url,
      auth: { token: { secretRef: { namespace: h.namespace, name: 'coffer-admin-token', key: 'token' } } },
      allowedNamespaces: { names: ['kube-system'] },
    });
    await h.waitForReady('ClusterConnection', `forbidden-${suffix}`);
    const alongside = await h.waitForReady('Project', 'alongside');
    await h.service.secrets.batchCreate({
      workspaceId: alongside.status?.id ?? '',
      environment: 'dev',
      secretPath: '/',
      secrets: [{ secretKey: LONE_KEY, secretValue: 'before\ud800after' }],
    });
    for (const c of reportedCases()) await h.create(c.kind, c.name, c.spec());
  });

  it.each(reportedCases().map((c) => [c.label, c.name] as const))('%s', async (_, name) => {
    const c = reportedCases().find((r) => r.name === name) as Reported;
    const obj = await h.waitForCondition(c.kind, c.name, {
      type: 'Synced',
      status: 'False',
      reason: c.reason,
    });
    const synced = obj.status?.conditions?.find((x) => x.type === 'Synced');
    expect(synced?.message).toContain(c.message);
    expect(obj.status?.conditions?.find((x) => x.type === 'Ready')?.status).not.toBe('True');
    if (c.writesNothing) expect(await h.readSecret(c.name)).toBeUndefined();
  });

  it('keeps unicode that is within bounds intact (256 emoji, combining marks, right-to-left text)', async () => {
    const name = 'Ünïcödé 🔑 \u05e9\u05dc\u05d5\u05dd e\u0301';
    const description = long(256, '🔑');
    await h.create(
      'Project',
      'unicode',
      project('unicode', (s) => Object.assign(s, { name, description }))(),
    );
    const obj = await h.waitForReady('Project', 'unicode');
    const stored = await h.service.projects.get(obj.status?.id ?? '');
    expect(stored.name).toBe(name);
    expect(stored.description).toBe(description);
  });

  it('keeps serving: a valid Project created after all this becomes Ready', async () => {
    await h.create('Project', 'after', project('after', () => undefined)());
    await h.waitForReady('Project', 'after');
    await h.waitForReady('Project', 'alongside');
  });
});

describe('bad input refused by the API server', () => {
  it('has at least 50 cases across kinds', () => {
    expect(allRefused.length).toBeGreaterThanOrEqual(50);
    expect(new Set(allRefused.map((c) => c.kind)).size).toBeGreaterThanOrEqual(10);
  });

  it.each(allRefused.map((c, i) => [`${c.kind}: ${c.label}`, c, i] as const))('%s', async (_, c, i) => {
    const name = c.name ?? `bad-${i}`;
    if (c.update) {
      await createRaw(c.kind, name, sampleSpec(c.kind));
      const patch = { spec: c.update };
      const write =
        findKind(c.kind)?.scope === 'Cluster'
          ? h.patch(c.kind, `${name}-${suffix}`, patch)
          : h.patch(c.kind, name, patch);
      expect(await refusal(write)).toContain(c.message);
      return;
    }
    expect(await refusal(createRaw(c.kind, name, specOf(c), c.strict))).toContain(c.message);
  });

  it('keeps serving the valid Project created alongside', async () => {
    await h.waitForReady('Project', 'alongside');
  });
});
