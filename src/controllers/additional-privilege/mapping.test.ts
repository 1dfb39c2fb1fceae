import { describe, expect, it } from 'vitest';
import { additionalPrivilegeSpec } from '../../api/v1alpha1/index.ts';
import type { Privilege } from '../../client/index.ts';
import { createRequest, driftedFields, statusOf, updateRequest } from './mapping.ts';

const spec = additionalPrivilegeSpec.parse({
  connectionRef: { name: 'c' },
  identityRef: { name: 'bot' },
  projectRef: { name: 'shop' },
  slug: 'extra',
  permissions: [{ subject: 'secrets', action: 'read', inverted: false }],
  temporary: { range: '30m', startTime: '2030-01-01T00:00:00Z' },
});
const now = new Date('2030-01-01T00:10:00Z');
const privilege: Privilege = {
  id: 'p1',
  slug: 'extra',
  isTemporary: true,
  temporaryMode: 'relative',
  temporaryRange: '30m',
  temporaryAccessStartTime: '2030-01-01T00:00:00.000Z',
  temporaryAccessEndTime: '2030-01-01T00:30:00.000Z',
  permissions: [{ subject: 'secrets', action: ['read'] }],
};
const state = { generation: 1, renewedGeneration: undefined };

describe('AdditionalPrivilege mapping', () => {
  it('creates with the owner, a list of actions and the spec window', () => {
    expect(createRequest(spec, { identityId: 'i', projectId: 'p' }, now)).toEqual({
      identityId: 'i',
      projectId: 'p',
      slug: 'extra',
      permissions: [{ subject: 'secrets', action: ['read'] }],
      type: {
        isTemporary: true,
        temporaryMode: 'relative',
        temporaryRange: '30m',
        temporaryAccessStartTime: '2030-01-01T00:00:00.000Z',
      },
    });
  });

  it.each<{ reason: string; change: Partial<Privilege>; fields: string[] }>([
    { reason: 'nothing', change: {}, fields: [] },
    { reason: 'slug', change: { slug: 'other' }, fields: ['slug'] },
    {
      reason: 'permissions',
      change: { permissions: [{ subject: 'secrets', action: ['edit'] }] },
      fields: ['permissions'],
    },
    { reason: 'made permanent', change: { isTemporary: false }, fields: ['temporary'] },
  ])('drift: $reason', ({ change, fields }) => {
    expect(driftedFields(spec, { ...privilege, ...change }, state, now)).toEqual(fields);
  });

  it('updates with slug and window (both required by the service)', () => {
    expect(updateRequest(spec, privilege, { now, renewing: false, state })).toMatchObject({
      slug: 'extra',
      type: { isTemporary: true, temporaryAccessStartTime: '2030-01-01T00:00:00.000Z' },
    });
  });

  it('reports window times only for temporary privileges', () => {
    expect(statusOf({ ...privilege, isTemporary: false }, { projectMembershipId: 'm' })).toEqual({
      projectMembershipId: 'm',
      isTemporary: false,
    });
    expect(statusOf(privilege, { renewedGeneration: 3 })).toEqual({
      isTemporary: true,
      temporaryAccessStartTime: '2030-01-01T00:00:00.000Z',
      temporaryAccessEndTime: '2030-01-01T00:30:00.000Z',
      renewedGeneration: 3,
    });
  });
});
