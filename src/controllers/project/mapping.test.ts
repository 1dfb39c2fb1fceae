import { describe, expect, it } from 'vitest';
import { projectSpec } from '../../api/v1alpha1/index.ts';
import type { Project } from '../../client/index.ts';
import {
  createRequest,
  describeDrift,
  environmentPlan,
  observedEnvironments,
  statusOf,
  updateRequest,
} from './mapping.ts';

const spec = (extra: Record<string, unknown> = {}) =>
  projectSpec.parse({ connectionRef: { name: 'c' }, name: 'Shop', slug: 'shop-app', ...extra });

const project = (extra: Partial<Project> = {}): Project => ({
  id: 'p1',
  name: 'Shop',
  slug: 'shop-app',
  orgId: 'org1',
  hasDeleteProtection: false,
  autoCapitalization: false,
  environments: [
    { id: 'e1', name: 'Development', slug: 'dev' },
    { id: 'e2', name: 'Production', slug: 'prod' },
  ],
  ...extra,
});

describe('createRequest', () => {
  it('maps the spec with its defaults and passes the template name through', () => {
    expect(createRequest(spec({ description: 'd' }), 'tpl')).toEqual({
      projectName: 'Shop',
      slug: 'shop-app',
      type: 'secret-manager',
      hasDeleteProtection: false,
      shouldCreateDefaultEnvs: false,
      projectDescription: 'd',
      template: 'tpl',
    });
  });

  it('omits template and description when unset', () => {
    const body = createRequest(spec(), undefined);
    expect(body).not.toHaveProperty('template');
    expect(body).not.toHaveProperty('projectDescription');
  });
});

describe('updateRequest', () => {
  it.each([
    { reason: 'in sync', spec: {}, project: {}, want: {} },
    { reason: 'renamed in the service', spec: {}, project: { name: 'Other' }, want: { name: 'Shop' } },
    { reason: 'a padded name the service trimmed', spec: { name: ' Shop ' }, project: {}, want: {} },
    {
      reason: 'slug changed in the service',
      spec: {},
      project: { slug: 'moved' },
      want: { slug: 'shop-app' },
    },
    {
      reason: 'protection turned off behind our back',
      spec: { hasDeleteProtection: true },
      project: {},
      want: { hasDeleteProtection: true },
    },
    { reason: 'description unset in spec is left alone', spec: {}, project: { description: 'x' }, want: {} },
    {
      reason: 'description differs',
      spec: { description: 'y' },
      project: { description: 'x' },
      want: { description: 'y' },
    },
    {
      reason: 'null description equals empty',
      spec: { description: '' },
      project: { description: null },
      want: {},
    },
    {
      reason: 'autoCapitalization unset is left alone',
      spec: {},
      project: { autoCapitalization: true },
      want: {},
    },
    {
      reason: 'autoCapitalization differs',
      spec: { autoCapitalization: true },
      project: {},
      want: { autoCapitalization: true },
    },
  ])('$reason', ({ spec: s, project: p, want }) => {
    expect(updateRequest(spec(s), project(p as Partial<Project>))).toEqual(want);
  });
});

describe('environmentPlan', () => {
  const observed = observedEnvironments(project());

  it.each([
    {
      reason: 'nothing listed: nothing to do',
      envs: undefined,
      prune: false,
      create: [],
      update: [],
      remove: [],
    },
    {
      reason: 'a missing environment is created',
      envs: [{ name: 'Staging', slug: 'staging' }],
      prune: false,
      create: [{ name: 'Staging', slug: 'staging' }],
      update: [],
      remove: [],
    },
    {
      reason: 'unlisted environments are removed only with prune',
      envs: [{ name: 'Development', slug: 'dev' }],
      prune: true,
      create: [],
      update: [],
      remove: ['prod'],
    },
    {
      reason: 'a renamed environment is updated',
      envs: [{ name: 'Dev', slug: 'dev' }],
      prune: false,
      create: [],
      update: [{ slug: 'dev', input: { name: 'Dev' } }],
      remove: [],
    },
    {
      reason: 'a moved environment is updated',
      envs: [{ name: 'Production', slug: 'prod', position: 1 }],
      prune: false,
      create: [],
      update: [{ slug: 'prod', input: { position: 1 } }],
      remove: [],
    },
    {
      reason: 'a position past the end means last (no endless drift)',
      envs: [{ name: 'Production', slug: 'prod', position: 9 }],
      prune: false,
      create: [],
      update: [],
      remove: [],
    },
    {
      reason: 'creates are ordered by position, unpositioned last',
      envs: [
        { name: 'C', slug: 'c' },
        { name: 'B', slug: 'b', position: 2 },
        { name: 'A', slug: 'a', position: 1 },
      ],
      prune: false,
      create: [
        { name: 'A', slug: 'a', position: 1 },
        { name: 'B', slug: 'b', position: 2 },
        { name: 'C', slug: 'c' },
      ],
      update: [],
      remove: [],
    },
  ])('$reason', ({ envs, prune, create, update, remove }) => {
    const plan = environmentPlan(spec({ environments: envs, pruneEnvironments: prune }), observed);
    expect(plan.create).toEqual(create);
    expect(plan.update.map(({ slug, input }) => ({ slug, input }))).toEqual(update);
    expect(plan.remove.map((env) => env.slug)).toEqual(remove);
  });

  it('orders moves by target position', () => {
    const s = spec({
      environments: [
        { name: 'Development', slug: 'dev', position: 2 },
        { name: 'Production', slug: 'prod', position: 1 },
      ],
    });
    expect(environmentPlan(s, observed).update.map((u) => u.slug)).toEqual(['prod', 'dev']);
  });
});

describe('describeDrift and statusOf', () => {
  it('names the fields and environments that differ, never values', () => {
    const s = spec({ environments: [{ name: 'Staging', slug: 'staging' }], pruneEnvironments: true });
    const p = project({ name: 'Other' });
    expect(describeDrift(updateRequest(s, p), environmentPlan(s, observedEnvironments(p)))).toBe(
      'name, environment staging missing, environment dev not listed, environment prod not listed',
    );
    expect(describeDrift({}, { create: [], update: [], remove: [] })).toBeUndefined();
  });

  it('records slug, organization and environments with ids and positions', () => {
    expect(statusOf(project())).toEqual({
      slug: 'shop-app',
      organizationId: 'org1',
      environments: [
        { slug: 'dev', name: 'Development', id: 'e1', position: 1 },
        { slug: 'prod', name: 'Production', id: 'e2', position: 2 },
      ],
    });
  });

  it('rejects duplicate environment positions in the spec', () => {
    const result = projectSpec.safeParse({
      connectionRef: { name: 'c' },
      name: 'Shop',
      slug: 'shop-app',
      environments: [
        { name: 'A', slug: 'a', position: 1 },
        { name: 'B', slug: 'b', position: 1 },
      ],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toContain('environment positions must be unique');
  });
});
