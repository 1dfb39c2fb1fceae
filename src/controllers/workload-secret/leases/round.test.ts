// The status a lease round writes: `leaseExpiry` is the earliest expiry of the held leases (the
// printer column), leaving out replaced leases, and is absent when none is held. The next run's
// deadline is that same expiry (`untilExpiryMs`).
import { describe, expect, it } from 'vitest';
import type { WorkloadSecretSource } from '../../../api/v1alpha1/index.ts';
import type { LeaseScope, ServiceClient } from '../../../client/index.ts';
import type { ManagedObject } from '../../../managed/external-client.ts';
import { LeaseRound } from './round.ts';
import { paramsHash, type HeldLease, type LeaseSource, type RetiredLease } from './scope.ts';

const now = new Date('2026-01-01T00:00:00.000Z');
const scope: LeaseScope = { projectSlug: 'shop', environmentSlug: 'dev', path: '/' };

function leaseSource(index: number, name: string): LeaseSource {
  const lease = { name, rotationOverlap: '5m', deletionPolicy: 'Revoke' as const };
  const source = { projectSlug: 'shop', environment: 'dev', secretPath: '/', dynamicSecret: lease };
  return { index, source: source as unknown as WorkloadSecretSource, lease };
}

function held(source: LeaseSource, expireAt: string): HeldLease {
  return {
    source: source.index,
    leaseId: `lease-${source.index}`,
    name: source.lease.name,
    projectSlug: scope.projectSlug,
    environment: scope.environmentSlug,
    secretPath: scope.path,
    createdAt: now.toISOString(),
    expireAt,
    renewAt: expireAt,
    paramsHash: paramsHash(scope, source),
    mark: now.toISOString(),
    deletionPolicy: 'Revoke',
  };
}

function round(sources: LeaseSource[], leases: HeldLease[], retired: RetiredLease[] = []): LeaseRound {
  const obj = { metadata: { name: 'app', namespace: 'ns', uid: 'uid' }, spec: {} } as ManagedObject<unknown>;
  const deps = {
    client: {} as ServiceClient,
    signal: new AbortController().signal,
    now,
    credentials: new Map<string, Readonly<Record<string, string>>>(),
    writeMark: () => Promise.resolve(),
  };
  const scopes = new Map(sources.map((s) => [s.index, scope] as const));
  return new LeaseRound(obj, { sources, scopes }, deps, { leases, retired });
}

describe('LeaseRound.status', () => {
  const db = leaseSource(0, 'app-db');
  const cache = leaseSource(1, 'cache-db');

  it('leaseExpiry is the earliest expiry of the held leases', () => {
    const status = round(
      [db, cache],
      [held(db, '2026-01-01T02:00:00.000Z'), held(cache, '2026-01-01T01:00:00.000Z')],
    ).status();
    expect(status.leases?.map((l) => l.leaseId)).toEqual(['lease-0', 'lease-1']);
    expect(status.leaseExpiry).toBe('2026-01-01T01:00:00.000Z');
  });

  it('a replaced lease does not count, and no held lease leaves it unset', () => {
    const replaced = { ...held(cache, '2026-01-01T00:10:00.000Z'), revokeAfter: '2026-01-01T00:05:00.000Z' };
    expect(round([db], [held(db, '2026-01-01T02:00:00.000Z')], [replaced]).status().leaseExpiry).toBe(
      '2026-01-01T02:00:00.000Z',
    );
    const none = round([], [], [replaced]).status();
    expect(none.leaseExpiry).toBeUndefined();
    expect(none.leases).toBeUndefined();
  });
});

describe('LeaseRound.untilExpiryMs', () => {
  const db = leaseSource(0, 'app-db');
  const cache = leaseSource(1, 'cache-db');

  it('is the time left to the earliest held expiry; a replaced lease does not count', () => {
    const replaced = { ...held(cache, '2026-01-01T00:00:30.000Z'), revokeAfter: '2026-01-01T00:00:20.000Z' };
    const leases = [held(db, '2026-01-01T00:02:00.000Z'), held(cache, '2026-01-01T00:01:00.000Z')];
    expect(round([db, cache], leases).untilExpiryMs()).toBe(60_000);
    expect(round([db], [held(db, '2026-01-01T00:02:00.000Z')], [replaced]).untilExpiryMs()).toBe(120_000);
  });

  it('is undefined when no lease is held (no deadline for revocations alone)', () => {
    const replaced = { ...held(cache, '2026-01-01T00:00:30.000Z'), revokeAfter: '2026-01-01T00:00:20.000Z' };
    expect(round([], [], [replaced]).untilExpiryMs()).toBeUndefined();
  });
});
