/**
 * The Argo CD health checks in config/argocd, run by a real Lua interpreter (Debian's lua5.4,
 * installed by .ci/run from scripts/ci/apt-packages) against Ready, progressing, failed and
 * paused objects. Argo CD runs them in gopher-lua (Lua 5.1): a global `obj`, and the chunk
 * returns `{ status, message }`. The scripts use only what both dialects share.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const argocdDir = fileURLToPath(new URL('../../config/argocd/', import.meta.url));
const lua = 'lua5.4';

const kinds = [
  'AdditionalPrivilege',
  'Bootstrap',
  'CertificateAuthority',
  'ClusterConnection',
  'Connection',
  'Identity',
  'IdentityAuth',
  'Integration',
  'Project',
  'ProjectRole',
  'ProjectTemplate',
  'SecretBatch',
] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON value as a Lua table constructor; strings use decimal byte escapes, so any text is safe. */
function toLua(value: Json): string {
  if (value === null) return 'nil';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    const bytes = [...Buffer.from(value, 'utf8')];
    return `"${bytes.map((b) => (/[\w .:/=-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `\\${b}`)).join('')}"`;
  }
  if (Array.isArray(value)) return `{ ${value.map(toLua).join(', ')} }`;
  const fields = Object.entries(value).map(([k, v]) => `[${toLua(k)}] = ${toLua(v)}`);
  return `{ ${fields.join(', ')} }`;
}

interface Health {
  status: string;
  message: string;
}

/** Runs `config/argocd/coffer.dev_<kind>/health.lua` the way Argo CD does and returns its verdict. */
function runHealth(kind: string, obj: Json): Health {
  const script = `${argocdDir}coffer.dev_${kind}/health.lua`;
  const code = `obj = ${toLua(obj)}\nlocal hs = dofile(${toLua(script)})\nio.write(tostring(hs.status), "\\n", tostring(hs.message))`;
  const run = spawnSync(lua, ['-e', code], { encoding: 'utf8' });
  if (run.error)
    throw new Error(`cannot run ${lua} (install it: apt-get install -y lua5.4): ${run.error.message}`);
  if (run.status !== 0) throw new Error(`cannot evaluate ${script}: ${run.stderr}`);
  const [status = '', message = ''] = run.stdout.split('\n');
  return { status, message };
}

interface Condition {
  type: 'Ready' | 'Synced';
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message?: string;
  observedGeneration?: number;
}

function object(
  kind: string,
  opts: {
    generation?: number;
    observed?: number;
    conditions?: Condition[];
    annotations?: Record<string, string>;
  },
): Json {
  const metadata: Json = {
    name: 'sample',
    namespace: 'team-a',
    generation: opts.generation ?? 1,
    annotations: opts.annotations ?? {},
  };
  const base = { apiVersion: 'coffer.dev/v1alpha1', kind, metadata };
  if (!opts.conditions) return base;
  const status: Json = { conditions: opts.conditions as unknown as Json };
  if (opts.observed !== undefined) status.observedGeneration = opts.observed;
  return { ...base, status };
}

const ready: Condition = { type: 'Ready', status: 'True', reason: 'Available', message: 'Project exists' };
const synced: Condition = { type: 'Synced', status: 'True', reason: 'ReconcileSuccess' };

const cases: { reason: string; obj: (kind: string) => Json; status: string; message: RegExp }[] = [
  {
    reason: 'Ready=True for the current generation',
    obj: (k) => object(k, { generation: 3, observed: 3, conditions: [ready, synced] }),
    status: 'Healthy',
    message: /^Available: Project exists$/,
  },
  {
    reason: 'observedGeneration only on the Ready condition',
    obj: (k) => object(k, { generation: 2, conditions: [{ ...ready, observedGeneration: 2 }, synced] }),
    status: 'Healthy',
    message: /^Available/,
  },
  {
    reason: 'no status yet',
    obj: (k) => object(k, {}),
    status: 'Progressing',
    message: /^Waiting for the operator to reconcile this \w+$/,
  },
  {
    reason: 'Ready=True for an older generation',
    obj: (k) => object(k, { generation: 4, observed: 3, conditions: [ready, synced] }),
    status: 'Progressing',
    message: /observe generation 4$/,
  },
  {
    reason: 'waiting on a reference',
    obj: (k) =>
      object(k, {
        observed: 1,
        conditions: [
          { type: 'Ready', status: 'False', reason: 'Unavailable' },
          {
            type: 'Synced',
            status: 'False',
            reason: 'ReferenceNotReady',
            message: 'Project "web" is not Ready',
          },
        ],
      }),
    status: 'Progressing',
    message: /^ReferenceNotReady: Project "web" is not Ready$/,
  },
  {
    reason: 'Ready=False while the operator is still creating',
    obj: (k) =>
      object(k, {
        observed: 1,
        conditions: [{ type: 'Ready', status: 'False', reason: 'Creating' }, synced],
      }),
    status: 'Progressing',
    message: /^Creating$/,
  },
  {
    reason: 'invalid spec',
    obj: (k) =>
      object(k, {
        observed: 1,
        conditions: [
          { type: 'Ready', status: 'False', reason: 'Unavailable' },
          { type: 'Synced', status: 'False', reason: 'InvalidSpec', message: 'spec.slug: too long' },
        ],
      }),
    status: 'Degraded',
    message: /^InvalidSpec: spec\.slug: too long$/,
  },
  {
    reason: 'ambiguous crashed create',
    obj: (k) =>
      object(k, {
        observed: 1,
        conditions: [
          { type: 'Synced', status: 'False', reason: 'CreateIncomplete', message: 'check the service' },
        ],
      }),
    status: 'Degraded',
    message: /^CreateIncomplete/,
  },
  {
    reason: 'a failing service call the operator retries',
    obj: (k) =>
      object(k, {
        observed: 1,
        conditions: [ready, { type: 'Synced', status: 'False', reason: 'CannotUpdateExternal' }],
      }),
    status: 'Degraded',
    message: /^CannotUpdateExternal$/,
  },
  {
    reason: 'Ready=False with a terminal reason',
    obj: (k) =>
      object(k, {
        observed: 1,
        conditions: [
          { type: 'Ready', status: 'False', reason: 'Forbidden', message: 'identity lacks access' },
          synced,
        ],
      }),
    status: 'Degraded',
    message: /^Forbidden: identity lacks access$/,
  },
  {
    reason: 'paused, even with a failing status',
    obj: (k) =>
      object(k, {
        annotations: { 'coffer.dev/paused': 'true' },
        observed: 1,
        conditions: [{ type: 'Synced', status: 'False', reason: 'InvalidSpec' }],
      }),
    status: 'Suspended',
    message: /paused/,
  },
  {
    reason: 'Synced=False Paused written by the operator',
    obj: (k) =>
      object(k, { observed: 1, conditions: [ready, { type: 'Synced', status: 'False', reason: 'Paused' }] }),
    status: 'Suspended',
    message: /^Paused$/,
  },
  {
    reason: 'a service outage the operator retries',
    obj: (k) =>
      object(k, {
        observed: 1,
        conditions: [
          ready,
          { type: 'Synced', status: 'False', reason: 'ServiceUnreachable', message: 'timeout' },
        ],
      }),
    status: 'Degraded',
    message: /^ServiceUnreachable: timeout$/,
  },
  {
    reason: 'rate limited by the service',
    obj: (k) =>
      object(k, {
        observed: 1,
        conditions: [ready, { type: 'Synced', status: 'False', reason: 'RateLimited' }],
      }),
    status: 'Progressing',
    message: /^RateLimited$/,
  },
  {
    reason: 'paused annotation set to something other than "true"',
    obj: (k) =>
      object(k, { annotations: { 'coffer.dev/paused': 'false' }, observed: 1, conditions: [ready] }),
    status: 'Healthy',
    message: /^Available/,
  },
];

describe('Argo CD health checks (config/argocd)', () => {
  it('has the lua5.4 interpreter (CI installs it from scripts/ci/apt-packages)', () => {
    const run = spawnSync(lua, ['-v'], { encoding: 'utf8' });
    expect(run.error, `${lua} is not on PATH: apt-get install -y lua5.4`).toBeUndefined();
    expect(run.stdout).toMatch(/^Lua 5\.4/);
  });

  it('ships exactly one script per kind', () => {
    const dirs = readdirSync(argocdDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    expect(dirs).toEqual(kinds.map((k) => `coffer.dev_${k}`).sort());
  });

  it('keeps the shared body identical in every script', () => {
    const marker = '-- ---- shared body';
    const bodies = kinds.map((k) => {
      const text = readFileSync(`${argocdDir}coffer.dev_${k}/health.lua`, 'utf8');
      expect(text).toContain(`local kind = "${k}"`);
      return text.slice(text.indexOf(marker));
    });
    expect(bodies[0]).toContain(marker);
    expect(new Set(bodies).size).toBe(1);
  });

  it('registers every script under its argocd-cm key in the kustomization', () => {
    const kustomization = parse(readFileSync(`${argocdDir}kustomization.yaml`, 'utf8')) as {
      configMapGenerator: { name: string; files: string[] }[];
    };
    const [generator] = kustomization.configMapGenerator;
    expect(generator?.name).toBe('argocd-cm');
    expect(generator?.files.sort()).toEqual(
      kinds.map((k) => `resource.customizations.health.coffer.dev_${k}=coffer.dev_${k}/health.lua`).sort(),
    );
  });

  const table = kinds.flatMap((kind) => cases.map((c) => ({ kind, ...c })));
  it.each(table)('$kind: $reason → $status', ({ kind, obj, status, message }) => {
    const health = runHealth(kind, obj(kind));
    expect(health.status).toBe(status);
    expect(health.message).toMatch(message);
  });

  it.each([
    { kind: 'Bootstrap', reason: 'AlreadyBootstrapped', status: 'Degraded' },
    { kind: 'Project', reason: 'AlreadyBootstrapped', status: 'Progressing' },
    { kind: 'IdentityAuth', reason: 'Expired', status: 'Degraded' },
    { kind: 'CertificateAuthority', reason: 'Expired', status: 'Degraded' },
    { kind: 'Connection', reason: 'Expired', status: 'Progressing' },
  ])('kind-specific terminal reason: $kind Ready=False $reason → $status', ({ kind, reason, status }) => {
    const obj = object(kind, {
      observed: 1,
      conditions: [{ type: 'Ready', status: 'False', reason }, synced],
    });
    expect(runHealth(kind, obj).status).toBe(status);
  });

  it('is deleting while a deletionTimestamp is set', () => {
    const obj = object('Project', { observed: 1, conditions: [ready, synced] }) as {
      metadata: Record<string, Json>;
    };
    obj.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(runHealth('Project', obj as unknown as Json)).toEqual({
      status: 'Progressing',
      message: 'Deleting: waiting for the operator to clean up',
    });
  });
});
