import { describe, expect, it } from 'vitest';
import {
  describeCredentialPlan,
  nextCredentialWakeMs,
  planCredentials,
  rotationTime,
  type CredentialFacts,
  type CredentialsStatus,
} from './credentials.ts';

const now = new Date('2030-01-10T00:00:00Z');
const settings = { secretName: 'creds', rotateEvery: '168h', overlap: '1h' };
const current = { id: 'c1', issuedAt: '2030-01-05T00:00:00Z' };
const recorded: CredentialsStatus = { secretName: 'creds', current };
const healthy: CredentialFacts = { now, secretHolds: true, current: { alive: true } };

describe('rotationTime', () => {
  it.each([
    {
      reason: 'rotateEvery only',
      rotateEvery: '24h',
      expiresAt: undefined,
      want: '2030-01-06T00:00:00.000Z',
    },
    {
      reason: 'no schedule, no expiry: never',
      rotateEvery: undefined,
      expiresAt: undefined,
      want: undefined,
    },
    {
      reason: 'expiry first: replaced an overlap before it',
      rotateEvery: '720h',
      expiresAt: new Date('2030-01-07T00:00:00Z'),
      want: '2030-01-06T23:00:00.000Z',
    },
    {
      reason: 'short lifetime: replaced at half of it',
      rotateEvery: undefined,
      expiresAt: new Date('2030-01-05T01:00:00Z'),
      want: '2030-01-05T00:30:00.000Z',
    },
  ])('$reason', ({ rotateEvery, expiresAt, want }) => {
    const s = { secretName: 'creds', overlap: '1h', ...(rotateEvery ? { rotateEvery } : {}) };
    expect(rotationTime(s, current, expiresAt)?.toISOString()).toBe(want);
  });
});

describe('planCredentials', () => {
  it.each([
    {
      reason: 'nothing recorded: issue',
      previous: undefined,
      facts: healthy,
      issue: 'none issued yet',
      retiring: [],
    },
    {
      reason: 'healthy and not due: keep',
      previous: recorded,
      facts: healthy,
      issue: undefined,
      retiring: [],
    },
    {
      reason: 'revoked in the service: issue, nothing to retire',
      previous: recorded,
      facts: { ...healthy, current: { alive: false } },
      issue: 'the current one is revoked, used up or expired',
      retiring: [],
    },
    {
      reason: 'Secret deleted: issue, keep the live one for the overlap',
      previous: recorded,
      facts: { ...healthy, secretHolds: false },
      issue: 'Secret creds does not hold it',
      retiring: [{ ...current, revokeAt: '2030-01-10T01:00:00Z' }],
    },
    {
      reason: 'rotation due: issue, retire the current one',
      previous: { ...recorded, current: { id: 'c1', issuedAt: '2030-01-01T00:00:00Z' } },
      facts: healthy,
      issue: 'rotation is due',
      retiring: [{ id: 'c1', issuedAt: '2030-01-01T00:00:00Z', revokeAt: '2030-01-10T01:00:00Z' }],
    },
    {
      reason: 'Secret name changed: issue',
      previous: { ...recorded, secretName: 'old' },
      facts: healthy,
      issue: 'Secret changed to creds',
      retiring: [{ ...current, revokeAt: '2030-01-10T01:00:00Z' }],
    },
  ])('$reason', ({ previous, facts, issue, retiring }) => {
    const plan = planCredentials(settings, previous, facts);
    expect(plan.issue).toBe(issue);
    expect(plan.retiring).toEqual(retiring);
  });

  it('revokes replaced credentials whose overlap has ended, keeps the others', () => {
    const previous: CredentialsStatus = {
      ...recorded,
      retiring: [
        { id: 'old1', issuedAt: '2030-01-01T00:00:00Z', revokeAt: '2030-01-09T00:00:00Z' },
        { id: 'old2', issuedAt: '2030-01-02T00:00:00Z', revokeAt: '2030-01-11T00:00:00Z' },
      ],
    };
    const plan = planCredentials(settings, previous, healthy);
    expect(plan.revoke.map((r) => r.id)).toEqual(['old1']);
    expect(plan.retiring.map((r) => r.id)).toEqual(['old2']);
    expect(plan.nextRotationAt?.toISOString()).toBe('2030-01-12T00:00:00.000Z');
    expect(describeCredentialPlan(plan)).toBe('credentials (1 to revoke)');
  });

  it('without credentials in the spec issues nothing but still revokes on time', () => {
    const previous: CredentialsStatus = {
      ...recorded,
      retiring: [{ id: 'old1', issuedAt: '2030-01-01T00:00:00Z', revokeAt: '2030-01-09T00:00:00Z' }],
    };
    const plan = planCredentials(undefined, previous, { now, secretHolds: true });
    expect(plan.issue).toBeUndefined();
    expect(plan.revoke.map((r) => r.id)).toEqual(['old1']);
  });
});

describe('nextCredentialWakeMs', () => {
  it('wakes at the earliest rotation or revocation, at least five seconds away', () => {
    expect(nextCredentialWakeMs(undefined, now)).toBeUndefined();
    const status: CredentialsStatus = {
      nextRotationAt: '2030-01-12T00:00:00Z',
      retiring: [{ id: 'x', issuedAt: '2030-01-01T00:00:00Z', revokeAt: '2030-01-10T00:10:00Z' }],
    };
    expect(nextCredentialWakeMs(status, now)).toBe(600_000);
    expect(nextCredentialWakeMs({ nextRotationAt: '2030-01-01T00:00:00Z' }, now)).toBe(5_000);
  });
});
