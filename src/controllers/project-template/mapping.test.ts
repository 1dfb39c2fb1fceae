import { describe, expect, it } from 'vitest';
import { projectTemplateSpec } from '../../api/v1alpha1/index.ts';
import type { ProjectTemplate } from '../../client/index.ts';
import { createRequest, driftedFields, updateRequest } from './mapping.ts';

const spec = projectTemplateSpec.parse({
  connectionRef: { name: 'cluster' },
  name: 'web',
  roles: [{ name: 'Readers', slug: 'readers', permissions: [{ subject: 'secrets', action: 'read' }] }],
  environments: [{ name: 'Development', slug: 'dev', position: 1 }],
});
const template: ProjectTemplate = {
  id: '6d1c4b1e-0000-4000-8000-000000000001',
  name: 'web',
  description: 'kept',
  type: 'secret-manager',
  roles: [{ name: 'Readers', slug: 'readers', permissions: [{ subject: 'secrets', action: ['read'] }] }],
  environments: [{ name: 'Development', slug: 'dev', position: 1 }],
};

describe('ProjectTemplate mapping', () => {
  it('creates with the default type, lists of actions, no description when unset', () => {
    expect(createRequest(spec)).toEqual({
      name: 'web',
      type: 'secret-manager',
      roles: [{ name: 'Readers', slug: 'readers', permissions: [{ subject: 'secrets', action: ['read'] }] }],
      environments: [{ name: 'Development', slug: 'dev', position: 1 }],
    });
  });

  it('sends no type on update and null environments when unset', () => {
    const body = updateRequest({ ...spec, environments: undefined });
    expect(body).not.toHaveProperty('type');
    expect(body.environments).toBeNull();
  });

  it.each<{ reason: string; change: Partial<ProjectTemplate>; fields: string[] }>([
    { reason: 'nothing', change: {}, fields: [] },
    { reason: 'name', change: { name: 'other' }, fields: ['name'] },
    { reason: 'type', change: { type: 'kms' }, fields: ['type'] },
    {
      reason: 'a role renamed',
      change: { roles: [{ ...template.roles[0]!, name: 'Other' }] },
      fields: ['roles'],
    },
    {
      reason: 'a role more',
      change: { roles: [...template.roles, { ...template.roles[0]!, slug: 'x' }] },
      fields: ['roles'],
    },
    {
      reason: 'role permissions',
      change: { roles: [{ ...template.roles[0]!, permissions: [{ subject: 'secrets', action: ['edit'] }] }] },
      fields: ['roles'],
    },
    {
      reason: 'an environment moved',
      change: { environments: [{ name: 'Development', slug: 'dev', position: 2 }] },
      fields: ['environments'],
    },
    { reason: 'environments cleared', change: { environments: null }, fields: ['environments'] },
    { reason: 'environments empty', change: { environments: [] }, fields: ['environments'] },
  ])('drift: $reason', ({ change, fields }) => {
    expect(driftedFields(spec, { ...template, ...change })).toEqual(fields);
  });

  it('treats unset environments as null and unset roles as none', () => {
    const bare = { ...spec, roles: undefined, environments: undefined };
    expect(driftedFields(bare, { ...template, roles: [], environments: null })).toEqual([]);
    expect(driftedFields(bare, template)).toEqual(['roles', 'environments']);
  });
});
