/**
 * Setting up the conformance suite: the kinds to run (every managed kind of the registry, each with
 * its `kinds/<folder>.ts`), and per kind its namespace, its connection (a Connection there, or a
 * ClusterConnection admitting it for a cluster-scoped kind) and its shared dependencies.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { kindRegistry } from '../../../src/controllers/index.ts';
import { findKind } from '../../../src/api/v1alpha1/index.ts';
import type { OperatorHarness } from '../operator.ts';
import type { ConformanceContext, Dependency, KindConformance } from './types.ts';

const kindsDir = join(import.meta.dirname, 'kinds');

/** The managed kinds of the registry, in registry order, with the file of their conformance data. */
export function managedKinds(): { kind: string; file: string }[] {
  return kindRegistry
    .filter((registration) => registration.runtime.reconciler === 'managed')
    .map((registration) => ({
      kind: registration.definition.kind,
      file: join(kindsDir, `${basename(registration.sample, '.yaml')}.ts`),
    }));
}

/**
 * The conformance data of every managed kind (or, with `COFFER_CONFORMANCE_KINDS=A,B`, of those
 * kinds only). Throws for a managed kind without its file: a new kind brings its own.
 */
export async function loadConformance(): Promise<KindConformance[]> {
  const only = process.env['COFFER_CONFORMANCE_KINDS']?.split(',').filter(Boolean);
  const wanted = managedKinds().filter(({ kind }) => !only || only.includes(kind));
  const missing = wanted.filter(({ file }) => !existsSync(file)).map(({ kind, file }) => `${kind} (${file})`);
  if (missing.length > 0) throw new Error(`managed kinds without conformance data: ${missing.join(', ')}`);
  return Promise.all(
    wanted.map(async ({ file }) => ((await import(file)) as { conformance: KindConformance }).conformance),
  );
}

/** Whether `kind` is cluster-scoped. */
export function isClusterScoped(kind: string): boolean {
  return findKind(kind)?.scope === 'Cluster';
}

/** Creates `dependency` with the kind's connection and waits until it is Ready. */
export async function createDependency(ctx: ConformanceContext, dependency: Dependency): Promise<void> {
  const connectionRef = isClusterScoped(dependency.kind) ? ctx.connectionRef : { name: 'coffer' };
  await ctx.h.create(
    dependency.kind,
    dependency.name,
    { ...dependency.spec, connectionRef },
    {
      namespace: ctx.namespace,
    },
  );
  await ctx.h.waitForReady(dependency.kind, dependency.name, { namespace: ctx.namespace });
}

/**
 * Creates a connection named `name` for `kind`'s resources, authenticated by the Secret
 * `conformance-token` in `namespace`, and waits until it is Ready: a Connection there, or a
 * ClusterConnection admitting that namespace for a cluster-scoped kind. Returns its reference.
 */
export async function createConnection(
  h: OperatorHarness,
  at: { readonly kind: string; readonly namespace: string },
  name: string,
): Promise<{ name: string }> {
  const { kind, namespace } = at;
  const secretRef = { name: 'conformance-token', key: 'token' };
  if (!isClusterScoped(kind)) {
    await h.create('Connection', name, { url: h.url, auth: { token: { secretRef } } }, { namespace });
    await h.waitForReady('Connection', name, { namespace });
    return { name };
  }
  await h.create('ClusterConnection', name, {
    url: h.url,
    auth: { token: { secretRef: { ...secretRef, namespace } } },
    allowedNamespaces: { names: [namespace] },
  });
  await h.waitForReady('ClusterConnection', name);
  return { name };
}

async function connect(h: OperatorHarness, kind: string, namespace: string, suffix: string) {
  await h.createSecret('conformance-token', { token: h.admin.token }, { namespace });
  // Dependencies (namespaced) always use the Connection `coffer`.
  await createConnection(h, { kind: 'Connection', namespace }, 'coffer');
  return isClusterScoped(kind)
    ? createConnection(h, { kind, namespace }, `conformance-${suffix}`)
    : { name: 'coffer' };
}

/** Prepares the namespace `namespace` for `conformance`'s cases. */
export async function prepareKind(
  h: OperatorHarness,
  conformance: KindConformance,
  namespace: string,
): Promise<ConformanceContext> {
  const suffix = randomBytes(3).toString('hex');
  const connectionRef = await connect(h, conformance.kind, namespace, suffix);
  const ctx: ConformanceContext = {
    h,
    namespace,
    connectionRef,
    unique: (base) => `${base}-${suffix}`,
    idOf: async (kind, name) => (await h.waitForReady(kind, name, { namespace })).status?.id ?? '',
  };
  for (const dependency of conformance.shared?.(ctx) ?? []) await createDependency(ctx, dependency);
  await conformance.prepare?.(ctx);
  return ctx;
}
