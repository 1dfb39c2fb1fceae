/**
 * The Argo CD health checks as Argo CD's own test reads them (resource_customizations/<group>/
 * <Kind>/health_test.yaml: each case's testdata object, evaluated by health.lua, gives the
 * expected status and message), run here in lua5.4. The cases were captured from live objects
 * (test/support/argocd-cases.ts); a health.lua regenerated with other verdicts fails here until
 * `npm run capture:argocd` proves the new ones live.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kindRegistry } from '../../src/controllers/registry.ts';
import { kindsWithCases } from '../support/argocd-cases.ts';
import { argocdDir, healthInLua54, type Health } from '../support/argocd-health.ts';

interface HealthTest {
  readonly healthStatus: Health;
  readonly inputPath: string;
}

function testsOf(kind: string): HealthTest[] {
  return (parse(readFileSync(join(argocdDir, kind, 'health_test.yaml'), 'utf8')) as { tests: HealthTest[] })
    .tests;
}

const kinds = kindRegistry.map((registration) => registration.definition.kind).sort();

describe('resource_customizations/coffer.dev', () => {
  it('holds a folder for every kind of the registry and nothing else', () => {
    expect(kindsWithCases()).toEqual(kinds);
  });

  it.each(kinds)('%s: health.lua beside health_test.yaml, every testdata object listed', (kind) => {
    expect(existsSync(join(argocdDir, kind, 'health.lua')), 'run npm run generate').toBe(true);
    expect(existsSync(join(argocdDir, kind, 'health_test.yaml')), 'run npm run capture:argocd').toBe(true);
    const listed = testsOf(kind).map((test) => test.inputPath);
    const files = readdirSync(join(argocdDir, kind, 'testdata')).map((file) => `testdata/${file}`);
    expect(listed.length).toBeGreaterThan(0);
    expect([...listed].sort()).toEqual(files.sort());
  });

  it.each(kinds)('%s: each case gives its expected health', (kind) => {
    const tests = testsOf(kind);
    const objects = tests.map(
      (test) => parse(readFileSync(join(argocdDir, kind, test.inputPath), 'utf8')) as unknown,
    );
    for (const obj of objects) expect(obj).toMatchObject({ apiVersion: 'coffer.dev/v1alpha1', kind });
    const verdicts = healthInLua54(kind, objects);
    expect(verdicts).toEqual(tests.map((test) => test.healthStatus));
  });
});
