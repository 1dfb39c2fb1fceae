import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allKinds } from '../api/v1alpha1/index.ts';
import type { ManagedObject } from '../managed/external-client.ts';
import {
  connectionReference,
  dependenciesFrom,
  referencedObjects,
  type ReferenceDeclaration,
} from './registration.ts';
import { connectionReferences } from './connection/references.ts';
import { kindDefinitions, kindRegistry } from './registry.ts';

const repoRoot = join(import.meta.dirname, '..', '..');

const membership: readonly ReferenceDeclaration[] = [
  {
    path: 'spec.projectMemberships[].projectRef',
    kinds: ['Project'],
    needs: 'Ready',
    watch: true,
    purpose: 'p',
  },
  {
    path: 'spec.projectMemberships[].roles[].projectRoleRef',
    kinds: ['ProjectRole'],
    needs: 'Ready',
    watch: true,
    purpose: 'r',
  },
];

describe('referencedObjects', () => {
  it('walks list items at every [] segment and skips absent references', () => {
    const spec = {
      projectMemberships: [
        { projectRef: { name: 'a' }, roles: [{ role: 'admin' }, { projectRoleRef: { name: 'reader' } }] },
        { projectRef: { name: 'b' }, roles: [] },
      ],
    };
    expect(referencedObjects({ spec }, membership)).toEqual([
      { kind: 'Project', name: 'a' },
      { kind: 'Project', name: 'b' },
      { kind: 'ProjectRole', name: 'reader' },
    ]);
    expect(referencedObjects({ spec: {} }, membership)).toEqual([]);
    expect(referencedObjects({}, membership)).toEqual([]);
  });

  it('takes the kind from the reference when several are allowed, the first by default', () => {
    expect(referencedObjects({ spec: { connectionRef: { name: 'c' } } }, [connectionReference])).toEqual([
      { kind: 'Connection', name: 'c' },
    ]);
    const cluster = { spec: { connectionRef: { kind: 'ClusterConnection', name: 'c' } } };
    expect(referencedObjects(cluster, [connectionReference])).toEqual([
      { kind: 'ClusterConnection', name: 'c' },
    ]);
    const foreign = { spec: { connectionRef: { kind: 'Secret', name: 'c' } } };
    expect(referencedObjects(foreign, [connectionReference])).toEqual([{ kind: 'Connection', name: 'c' }]);
  });

  it('keeps the namespace a reference names (a ClusterConnection’s identityRef)', () => {
    const login = (identityRef: Record<string, string>) => ({ spec: { auth: { oidc: { identityRef } } } });
    expect(referencedObjects(login({ name: 'app', namespace: 'team-a' }), connectionReferences)).toEqual([
      { kind: 'Identity', name: 'app', namespace: 'team-a' },
    ]);
    expect(referencedObjects(login({ name: 'app' }), connectionReferences)).toEqual([
      { kind: 'Identity', name: 'app' },
    ]);
  });

  it('leaves references without watch out of dependencies', () => {
    const obj = {
      spec: { connectionRef: { name: 'c' }, projectMemberships: [{ projectRef: { name: 'a' } }] },
    };
    const dependencies = dependenciesFrom([connectionReference, ...membership]);
    expect(dependencies(obj as unknown as ManagedObject<unknown>)).toEqual([{ kind: 'Project', name: 'a' }]);
  });
});

describe('the kind registry', () => {
  it('lists each kind once, each with its sample and doc page', () => {
    const kinds = kindRegistry.map((k) => k.definition.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    for (const kind of kindRegistry) {
      expect(existsSync(join(repoRoot, kind.sample)), kind.sample).toBe(true);
      expect(existsSync(join(repoRoot, kind.docPage)), kind.docPage).toBe(true);
    }
  });

  it('holds the same definitions, in the same order, as allKinds of src/api/v1alpha1', () => {
    expect(kindDefinitions).toEqual([...allKinds]);
    kindDefinitions.forEach((definition, i) => expect(definition).toBe(allKinds[i]));
  });

  it('orders every kind after the kinds it references (but for declared forward references)', () => {
    const seen = new Set<string>();
    for (const { definition, references } of kindRegistry) {
      for (const reference of references.filter((r) => !r.forward)) {
        for (const kind of reference.kinds) expect(seen, `${definition.kind} → ${kind}`).toContain(kind);
      }
      seen.add(definition.kind);
    }
  });

  it('declares only references to registered kinds, at spec fields the schema has', () => {
    for (const { definition, references } of kindRegistry) {
      const shape = (definition.spec as unknown as { shape?: Record<string, unknown> }).shape ?? {};
      for (const reference of references) {
        const field = reference.path.split('.')[1]?.replace('[]', '') ?? '';
        expect(Object.keys(shape), `${definition.kind}.${reference.path}`).toContain(field);
      }
    }
  });
});
