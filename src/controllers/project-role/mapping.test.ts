import { describe, expect, it } from 'vitest';
import { projectRoleSpec } from '../../api/v1alpha1/index.ts';
import type { Role } from '../../client/index.ts';
import { createRequest, driftedFields } from './mapping.ts';

const spec = projectRoleSpec.parse({
  connectionRef: { name: 'c' },
  projectRef: { name: 'p' },
  slug: 'reader',
  name: 'Reader',
  permissions: [{ subject: 'secrets', action: 'read' }],
});
const role: Role = {
  id: 'r1',
  slug: 'reader',
  name: 'Reader',
  description: 'set in the service',
  permissions: [{ subject: 'secrets', action: ['read'], inverted: false }],
};

describe('ProjectRole mapping', () => {
  it('sends actions as lists and no description when unset', () => {
    expect(createRequest(spec)).toEqual({
      slug: 'reader',
      name: 'Reader',
      permissions: [{ subject: 'secrets', action: ['read'] }],
    });
  });

  it.each<{ reason: string; change: Partial<Role>; specChange?: { description: string }; fields: string[] }>([
    { reason: 'nothing differs (unset description is left alone)', change: {}, fields: [] },
    { reason: 'name', change: { name: 'Other' }, fields: ['name'] },
    { reason: 'slug', change: { slug: 'other' }, fields: ['slug'] },
    {
      reason: 'a description that differs',
      change: {},
      specChange: { description: 'x' },
      fields: ['description'],
    },
    {
      reason: 'an equal description',
      change: {},
      specChange: { description: 'set in the service' },
      fields: [],
    },
    {
      reason: 'permissions',
      change: { permissions: [{ subject: 'secrets', action: ['edit'] }] },
      fields: ['permissions'],
    },
    {
      reason: 'permissions absent in the answer',
      change: { permissions: undefined },
      fields: ['permissions'],
    },
  ])('drift: $reason', ({ change, specChange, fields }) => {
    expect(driftedFields({ ...spec, ...specChange }, { ...role, ...change })).toEqual(fields);
  });
});
