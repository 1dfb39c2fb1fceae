// The generated CRDs (their drift check is test/unit/generate.test.ts): every field described, samples valid, and the invalid
// objects of the shared table rejected by zod as well (the integration test checks the API server).
import { describe, expect, it } from 'vitest';
import { buildAllCrds } from '../../src/api/crd/build.ts';
import type { SchemaNode } from '../../src/api/crd/structural.ts';
import { renderCrdFiles } from '../../src/api/crd/render.ts';
import { findKind, kindDefinitions, kindRegistry } from '../../src/controllers/registry.ts';
import { badObjects, loadSamples } from './crds-cases.ts';

/** Paths of properties without a description, walking properties, items and map values. */
function undescribedFields(node: SchemaNode, path: string): string[] {
  const missing: string[] = [];
  const properties = (node['properties'] ?? {}) as Record<string, SchemaNode>;
  for (const [name, child] of Object.entries(properties)) {
    // The API server refuses a description on metadata; kubectl explain has its own text for it.
    if (path.split('.').length === 1 && name === 'metadata') continue;
    const description = child['description'];
    if (typeof description !== 'string' || description.trim().length < 5) missing.push(`${path}.${name}`);
    missing.push(...undescribedFields(child, `${path}.${name}`));
  }
  for (const key of ['items', 'additionalProperties'] as const) {
    const child = node[key];
    if (typeof child === 'object' && child !== null)
      missing.push(...undescribedFields(child as SchemaNode, `${path}[*]`));
  }
  return missing;
}

/** Keys present in `input` but not in `parsed` (zod strips unknown keys; this finds typos). */
function unknownKeys(input: unknown, parsed: unknown, path: string): string[] {
  if (Array.isArray(input) && Array.isArray(parsed)) {
    return input.flatMap((item, i) => unknownKeys(item, parsed[i], `${path}[${i}]`));
  }
  if (typeof input !== 'object' || input === null || typeof parsed !== 'object' || parsed === null) return [];
  return Object.entries(input).flatMap(([key, value]) =>
    key in parsed
      ? unknownKeys(value, (parsed as Record<string, unknown>)[key], `${path}.${key}`)
      : [`${path}.${key}`],
  );
}

describe('generated CRD chart templates', () => {
  it('wrap every chart template in crds.install and keep CRDs on uninstall', () => {
    const templates = [...renderCrdFiles(buildAllCrds(kindDefinitions))].filter(([path]) =>
      path.startsWith('charts/'),
    );
    expect(templates).toHaveLength(kindRegistry.length);
    for (const [path, content] of templates) {
      expect(content, path).toMatch(/^# .*\n\{\{- if \.Values\.crds\.install \}\}\n/);
      expect(content, path).toMatch(/\{\{- end \}\}\n$/);
      expect(content, path).toContain('helm.sh/resource-policy: keep');
    }
  });
});

describe('CRDs', () => {
  const crds = buildAllCrds(kindDefinitions);

  it('cover every registered kind, in registry order, with unique names, short names and the coffer category', () => {
    expect(crds.map((c) => c.spec.names.kind)).toEqual(kindRegistry.map((k) => k.definition.kind));
    const shortNames = crds.flatMap((c) => c.spec.names.shortNames);
    expect(new Set(shortNames).size).toBe(shortNames.length);
    for (const crd of crds) expect(crd.spec.names.categories).toEqual(['coffer']);
  });

  it.each(crds.map((crd) => [crd.spec.names.kind, crd] as const))(
    '%s describes every field',
    (_kind, crd) => {
      const schema = crd.spec.versions[0]?.schema.openAPIV3Schema ?? {};
      expect(undescribedFields(schema, crd.spec.names.kind)).toEqual([]);
    },
  );

  it.each(crds.map((crd) => [crd.spec.names.kind, crd] as const))(
    '%s has a status subresource and the Ready, Synced, ID and Age columns',
    (_kind, crd) => {
      const version = crd.spec.versions[0];
      expect(version?.subresources).toEqual({ status: {} });
      const names = (version?.additionalPrinterColumns ?? []).map((c) => c['name']);
      expect(names.slice(0, 2)).toEqual(['Ready', 'Synced']);
      expect(names.slice(-2)).toEqual(['ID', 'Age']);
    },
  );

  it('have the scope of their kind definition', () => {
    for (const crd of crds) expect(crd.spec.scope).toBe(findKind(crd.spec.names.kind)?.scope);
  });
});

describe('samples', () => {
  const samples = loadSamples();

  it('include one of every kind', () => {
    const kinds = new Set(
      samples.filter((s) => s.object.apiVersion === 'coffer.dev/v1alpha1').map((s) => s.object.kind),
    );
    expect([...kinds].sort()).toEqual(kindRegistry.map((k) => k.definition.kind).sort());
  });

  it.each(samples.map((s) => [`${s.file} ${s.object.kind}/${s.object.metadata.name}`, s.object] as const))(
    '%s parses with its zod schema and has no unknown fields',
    (_name, object) => {
      if (object.apiVersion !== 'coffer.dev/v1alpha1') {
        expect([
          'Secret',
          'ServiceAccount',
          'Role',
          'RoleBinding',
          'ClusterRoleBinding',
          'Deployment',
        ]).toContain(object.kind);
        return;
      }
      const kind = findKind(object.kind);
      expect(kind, object.kind).toBeDefined();
      const result = kind?.spec.safeParse(object.spec);
      expect(result?.error?.issues ?? []).toEqual([]);
      expect(unknownKeys(object.spec, result?.data, 'spec')).toEqual([]);
    },
  );
});

describe('invalid objects', () => {
  const creatable = badObjects.filter((c) => c.updatedSpec === undefined);

  it('the table has at least 15 cases across at least 8 kinds', () => {
    expect(badObjects.length).toBeGreaterThanOrEqual(15);
    expect(new Set(badObjects.map((c) => c.kind)).size).toBeGreaterThanOrEqual(8);
  });

  it.each(creatable.map((c) => [c.reason, c] as const))('zod rejects: %s', (_reason, testCase) => {
    const result = findKind(testCase.kind)?.spec.safeParse(testCase.spec);
    expect(result?.success).toBe(false);
    if (testCase.zodMessage) {
      const messages = result?.error?.issues.map((i) => i.message) ?? [];
      expect(
        messages.some((m) => m.includes(testCase.zodMessage ?? '')),
        messages.join('; '),
      ).toBe(true);
    }
  });

  it.each(badObjects.filter((c) => c.updatedSpec).map((c) => [c.reason, c] as const))(
    'both sides of the update are valid for zod (only the transition is refused): %s',
    (_reason, testCase) => {
      const kind = findKind(testCase.kind);
      expect(kind?.spec.safeParse(testCase.spec).error?.issues ?? []).toEqual([]);
      expect(kind?.spec.safeParse(testCase.updatedSpec).error?.issues ?? []).toEqual([]);
    },
  );
});
