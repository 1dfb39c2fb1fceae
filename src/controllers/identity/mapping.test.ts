import { describe, expect, it } from 'vitest';
import { identitySpec } from '../../api/v1alpha1/index.ts';
import type { IdentityDetails } from '../../client/index.ts';
import { createRequest, outputSecret, updateRequest } from './mapping.ts';

const spec = (extra: Record<string, unknown> = {}) =>
  identitySpec.parse({ connectionRef: { name: 'c' }, name: 'app', ...extra });

const details = (extra: Partial<IdentityDetails> = {}): IdentityDetails => ({
  id: 'i1',
  name: 'app',
  role: 'no-access',
  hasDeleteProtection: false,
  authMethods: [],
  metadata: [],
  orgId: 'org1',
  createdAt: undefined,
  updatedAt: undefined,
  ...extra,
});

describe('Identity mapping', () => {
  it('creates with the defaults (org role no-access) and the organization', () => {
    expect(createRequest(spec({ metadata: [{ key: 'team', value: 'a' }] }), 'org1')).toEqual({
      name: 'app',
      organizationId: 'org1',
      role: 'no-access',
      hasDeleteProtection: false,
      metadata: [{ key: 'team', value: 'a' }],
    });
  });

  it.each([
    { reason: 'in sync', spec: {}, identity: {}, want: {} },
    { reason: 'renamed in the service', spec: {}, identity: { name: 'other' }, want: { name: 'app' } },
    { reason: 'org role changed', spec: { role: 'member' }, identity: {}, want: { role: 'member' } },
    {
      reason: 'protection changed',
      spec: {},
      identity: { hasDeleteProtection: true },
      want: { hasDeleteProtection: false },
    },
    {
      reason: 'metadata unset is left alone',
      spec: {},
      identity: { metadata: [{ key: 'x', value: 'y' }] },
      want: {},
    },
    {
      reason: 'metadata in another order is equal',
      spec: {
        metadata: [
          { key: 'a', value: '1' },
          { key: 'b', value: '2' },
        ],
      },
      identity: {
        metadata: [
          { id: 'm2', key: 'b', value: '2' },
          { id: 'm1', key: 'a', value: '1' },
        ],
      },
      want: {},
    },
    {
      reason: 'metadata value changed',
      spec: { metadata: [{ key: 'a', value: '1' }] },
      identity: { metadata: [{ key: 'a', value: '2' }] },
      want: { metadata: [{ key: 'a', value: '1' }] },
    },
  ])('$reason', ({ spec: s, identity, want }) => {
    expect(updateRequest(spec(s), details(identity))).toEqual(want);
  });

  it('publishes identity and organization ids only when a Secret name is set', () => {
    expect(outputSecret(spec(), 'i1', 'org1')).toBeUndefined();
    expect(outputSecret(spec({ outputSecretName: 'app-identity' }), 'i1', 'org1')).toEqual([
      { name: 'app-identity', data: { identityId: 'i1', organizationId: 'org1' } },
    ]);
  });
});
