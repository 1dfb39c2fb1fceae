// The cases every managed kind shares, run for every managed kind of the registry against the real
// control plane, one devserver and the whole operator: create, update, drift corrected by the
// poll, ObserveOnly, adoption by the external-id annotation, AlreadyExists for an object found by
// natural key, deletion with Orphan, Delete and the abandon annotation, and deletion while the
// connection does not exist. Each kind runs in its own namespace with its own connection; its data
// (a minimal spec, its dependencies, how to read, make and change its service object, the cases
// that do not apply and why) is test/support/conformance/kinds/<kind folder>.ts. Kind-specific
// behaviour stays in the kind's own file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceName, runCase } from '../support/conformance/cases.ts';
import { isClusterScoped, loadConformance, managedKinds, prepareKind } from '../support/conformance/setup.ts';
import { conformanceCases, type ConformanceContext } from '../support/conformance/types.ts';
import { startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

const kinds = await loadConformance();
let h: OperatorHarness;
const contexts = new Map<string, Promise<ConformanceContext>>();

beforeAll(async () => {
  h = await startOperatorHarness({
    connection: false,
    devserver: { enableAdmin: true },
    extraNamespaces: kinds.slice(1).map(() => ({})),
    logLevel: 'info',
  });
  kinds.forEach((k, i) => contexts.set(k.kind, prepareKind(h, k, h.namespaces[i] ?? '')));
  await Promise.all(contexts.values());
});

afterAll(async () => {
  // Cluster-scoped resources first: their deletion needs the ClusterConnection, which stop() removes.
  for (const k of kinds.filter((kind) => isClusterScoped(kind.kind))) {
    const ctx = await contexts.get(k.kind);
    if (!ctx) continue;
    const names = conformanceCases.map((name) => resourceName(ctx, k, name));
    await Promise.all(names.map((name) => h.delete(k.kind, name)));
    await Promise.all(names.map((name) => h.waitForDeletion(k.kind, name)));
  }
  await h?.stop();
});

it('has conformance data for every managed kind of the registry', () => {
  const only = process.env['COFFER_CONFORMANCE_KINDS'];
  const expected = managedKinds()
    .map(({ kind }) => kind)
    .filter((kind) => !only || only.split(',').includes(kind));
  expect(kinds.map((k) => k.kind)).toEqual(expected);
});

describe.each(kinds)('$kind', { concurrent: true }, (k) => {
  const applicable = conformanceCases.filter((name) => !k.notApplicable?.[name]);
  it.each(applicable)('%s', async (name) => {
    const ctx = await contexts.get(k.kind);
    if (!ctx) throw new Error(`no context for ${k.kind}`);
    await runCase(ctx, k, name);
  });
});

it('never logs the connection token', () => {
  expect(h.logs()).not.toContain(h.admin.token);
});
