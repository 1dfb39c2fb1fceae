import { describe, expect, it } from 'vitest';
import type { CredentialsStatus } from './credentials.ts';
import { recordedIds, sortUnrecorded, type LabelledCredential } from './issuance.ts';

const mark = '2030-01-10T12:00:00Z';
const skewMs = 2 * 60_000;
const status: CredentialsStatus = {
  secretName: 'creds',
  current: { id: 'current', issuedAt: '2030-01-10T12:00:00Z' },
  retiring: [{ id: 'retiring', issuedAt: '2030-01-09T12:00:00Z', revokeAt: '2030-01-10T13:00:00Z' }],
};

describe('recordedIds', () => {
  it('lists the current and the retiring credentials', () => {
    expect([...recordedIds(status)].sort()).toEqual(['current', 'retiring']);
  });

  it('is empty without status', () => {
    expect(recordedIds(undefined).size).toBe(0);
  });
});

describe('sortUnrecorded', () => {
  it.each<{
    reason: string;
    labelled: LabelledCredential[];
    status?: CredentialsStatus;
    mark?: string;
    interrupted: string[];
    leaked: string[];
  }>([
    {
      reason: 'recorded credentials are never touched, even when created after the mark',
      labelled: [
        { id: 'current', createdAt: '2030-01-10T12:00:01Z' },
        { id: 'retiring', createdAt: '2030-01-10T12:00:02Z' },
      ],
      status,
      mark,
      interrupted: [],
      leaked: [],
    },
    {
      reason: 'unrecorded and created after the mark: an interrupted issuance',
      labelled: [{ id: 'lost', createdAt: '2030-01-10T12:00:01.500Z' }],
      status,
      mark,
      interrupted: ['lost'],
      leaked: [],
    },
    {
      reason: 'the service clock behind by less than the allowance still counts',
      labelled: [{ id: 'lost', createdAt: '2030-01-10T11:58:30Z' }],
      status,
      mark,
      interrupted: ['lost'],
      leaked: [],
    },
    {
      reason: 'older than the mark less the allowance: leaked some other way',
      labelled: [{ id: 'old', createdAt: '2030-01-10T11:57:59Z' }],
      status,
      mark,
      interrupted: [],
      leaked: ['old'],
    },
    {
      reason: 'no creation time from the service: leaked, never revoked at once',
      labelled: [{ id: 'undated' }],
      status,
      mark,
      interrupted: [],
      leaked: ['undated'],
    },
    {
      reason: 'no mark (no issuance was ever guarded): nothing is interrupted',
      labelled: [{ id: 'lost', createdAt: '2030-01-10T12:00:01Z' }],
      status,
      interrupted: [],
      leaked: ['lost'],
    },
    {
      reason: 'an unparseable mark counts as none',
      labelled: [{ id: 'lost', createdAt: '2030-01-10T12:00:01Z' }],
      status,
      mark: 'yesterday',
      interrupted: [],
      leaked: ['lost'],
    },
    {
      reason: 'no status (first issuance, or a fresh attach): everything after the mark is interrupted',
      labelled: [
        { id: 'a', createdAt: '2030-01-10T12:00:01Z' },
        { id: 'b', createdAt: '2030-01-10T12:00:02Z' },
      ],
      mark,
      interrupted: ['a', 'b'],
      leaked: [],
    },
  ])('$reason', ({ labelled, status: recorded, mark: read, interrupted, leaked }) => {
    expect(sortUnrecorded(labelled, recorded, read, skewMs)).toEqual({ interrupted, leaked });
  });
});
