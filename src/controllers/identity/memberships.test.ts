import { describe, expect, it } from 'vitest';
import type { IdentityMembership, MembershipRole } from '../../client/index.ts';
import {
  membershipPlan,
  recordOf,
  roleRequests,
  sameRoles,
  type DesiredMembership,
  type DesiredRole,
} from './memberships.ts';

const role = (slug: string, extra: Partial<MembershipRole> = {}): MembershipRole => ({
  role: slug,
  slug,
  isTemporary: false,
  ...extra,
});
const want = (slug: string, temporary?: DesiredRole['temporary']): DesiredRole => ({
  slug,
  known: false,
  ...(temporary ? { temporary } : {}),
});
const temp = (slug: string, range: string, start: string) =>
  role(slug, { isTemporary: true, temporaryRange: range, temporaryAccessStartTime: start });

describe('sameRoles', () => {
  it.each([
    {
      reason: 'same permanent roles in another order',
      desired: [want('a'), want('b')],
      current: [role('b'), role('a')],
      same: true,
    },
    { reason: 'a role missing', desired: [want('a'), want('b')], current: [role('a')], same: false },
    { reason: 'an extra role', desired: [want('a')], current: [role('a'), role('b')], same: false },
    {
      reason: 'permanent wanted, temporary held',
      desired: [want('a')],
      current: [temp('a', '1h', '2030-01-01T00:00:00Z')],
      same: false,
    },
    {
      reason: 'temporary without start time matches any start',
      desired: [want('a', { range: '1h' })],
      current: [temp('a', '1h', '2030-01-01T00:00:00Z')],
      same: true,
    },
    {
      reason: 'temporary range differs',
      desired: [want('a', { range: '2h' })],
      current: [temp('a', '1h', '2030-01-01T00:00:00Z')],
      same: false,
    },
    {
      reason: 'temporary start compared as an instant',
      desired: [want('a', { range: '1h', startTime: '2030-01-01T00:00:00Z' })],
      current: [temp('a', '1h', '2030-01-01T00:00:00.000Z')],
      same: true,
    },
    {
      reason: 'temporary start differs',
      desired: [want('a', { range: '1h', startTime: '2030-01-02T00:00:00Z' })],
      current: [temp('a', '1h', '2030-01-01T00:00:00Z')],
      same: false,
    },
    {
      reason: 'duplicates count',
      desired: [want('a'), want('a')],
      current: [role('a'), role('b')],
      same: false,
    },
  ])('$reason', ({ desired, current, same }) => {
    expect(sameRoles(desired, current)).toBe(same);
  });
});

describe('roleRequests', () => {
  it('sends permanent roles as such and starts temporary ones now unless a start is given', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    expect(
      roleRequests(
        [
          want('a'),
          want('b', { range: '1h' }),
          want('c', { range: '2d', startTime: '2030-02-01T00:00:00Z' }),
        ],
        now,
      ),
    ).toEqual([
      { role: 'a', isTemporary: false },
      {
        role: 'b',
        isTemporary: true,
        temporaryMode: 'relative',
        temporaryRange: '1h',
        temporaryAccessStartTime: '2030-01-01T00:00:00.000Z',
      },
      {
        role: 'c',
        isTemporary: true,
        temporaryMode: 'relative',
        temporaryRange: '2d',
        temporaryAccessStartTime: '2030-02-01T00:00:00Z',
      },
    ]);
  });
});

describe('membershipPlan', () => {
  const desired: DesiredMembership[] = [
    { project: 'shop', projectId: 'p1', roles: [want('viewer')] },
    { project: 'blog', projectId: 'p2', roles: [want('admin')] },
  ];
  const member = (roles: MembershipRole[]): IdentityMembership => ({ id: 'm', roles });

  it.each([
    {
      reason: 'not a member anywhere: both created',
      current: new Map<string, IdentityMembership | undefined>([
        ['p1', undefined],
        ['p2', undefined],
      ]),
      recorded: [],
      plan: { create: ['shop', 'blog'], update: [], remove: [] },
    },
    {
      reason: 'roles changed behind our back: updated',
      current: new Map([
        ['p1', member([role('admin')])],
        ['p2', member([role('admin')])],
      ]),
      recorded: [],
      plan: { create: [], update: ['shop'], remove: [] },
    },
    {
      reason: 'a recorded project no longer listed: removed; never-listed ones untouched',
      current: new Map([
        ['p1', member([role('viewer')])],
        ['p2', member([role('admin')])],
      ]),
      recorded: [
        { project: 'old', projectId: 'p9' },
        { project: 'shop', projectId: 'p1' },
      ],
      plan: { create: [], update: [], remove: ['old'] },
    },
  ])('$reason', ({ current, recorded, plan }) => {
    const result = membershipPlan(desired, current, recorded);
    expect({
      create: result.create.map((m) => m.project),
      update: result.update.map((m) => m.project),
      remove: result.remove.map((m) => m.project),
    }).toEqual(plan);
  });

  it('records managed memberships with their role slugs', () => {
    expect(recordOf(desired)).toEqual([
      { project: 'shop', projectId: 'p1', roles: ['viewer'] },
      { project: 'blog', projectId: 'p2', roles: ['admin'] },
    ]);
  });
});
