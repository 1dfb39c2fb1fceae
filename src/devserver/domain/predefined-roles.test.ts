import { describe, expect, it } from 'vitest';
import { can, type PermissionRule } from './permission-rules.ts';
import {
  ORG_SUBJECT_ACTIONS,
  PROJECT_SUBJECT_ACTIONS,
  ProjectPermissionRuleSchema,
} from './permission-schema.ts';
import {
  collectProjectRules,
  isActive,
  isPredefinedOrgRole,
  isPredefinedProjectRole,
  orgRoleRules,
  projectRoleRules,
  RESERVED_PROJECT_ROLE_SLUGS,
} from './predefined-roles.ts';

const dev = { environment: 'dev', secretPath: '/' };

describe('project roles', () => {
  it.each([
    ['admin', 'readValue', 'secrets', true],
    ['admin', 'grant-privileges', 'identity', true],
    ['admin', 'delete', 'workspace', true],
    ['admin', 'subscribe-on-updated', 'secret-events', true],
    ['member', 'edit', 'secrets', true],
    ['member', 'create', 'secret-folders', true],
    ['member', 'create', 'environments', true],
    ['member', 'create', 'role', false],
    ['member', 'grant-privileges', 'identity', false],
    ['member', 'delete', 'workspace', false],
    ['member', 'subscribe-on-created', 'secret-events', true],
    ['viewer', 'readValue', 'secrets', true],
    ['viewer', 'describeSecret', 'secrets', true],
    ['viewer', 'edit', 'secrets', false],
    ['viewer', 'read', 'secret-folders', true],
    ['viewer', 'create', 'secret-folders', false],
    ['viewer', 'read', 'role', true],
    ['viewer', 'subscribe-on-deleted', 'secret-events', true],
    ['no-access', 'readValue', 'secrets', false],
    ['no-access', 'read', 'role', false],
  ])('%s may %s on %s: %s', (role, action, subject, expected) => {
    expect(can(projectRoleRules(role) ?? [], action, subject, dev)).toBe(expected);
  });

  it.each(['admin', 'member', 'viewer', 'no-access'])('%s consists of valid rules', (role) => {
    for (const rule of projectRoleRules(role) ?? []) {
      expect(ProjectPermissionRuleSchema.safeParse(rule).success).toBe(true);
    }
  });

  it('admin covers every catalog action', () => {
    const admin = projectRoleRules('admin') ?? [];
    for (const [subject, actions] of Object.entries(PROJECT_SUBJECT_ACTIONS)) {
      for (const action of actions) expect(can(admin, action, subject)).toBe(true);
    }
  });

  it('returns independent copies', () => {
    const first = projectRoleRules('viewer') ?? [];
    first[0]?.action.push('delete');
    expect(projectRoleRules('viewer')?.[0]?.action).not.toContain('delete');
  });

  it('knows its slugs', () => {
    expect(projectRoleRules('custom')).toBeUndefined();
    expect(isPredefinedProjectRole('viewer')).toBe(true);
    expect(isPredefinedProjectRole('custom')).toBe(false);
    expect(RESERVED_PROJECT_ROLE_SLUGS).toContain('ssh-host-bootstrapper');
  });
});

describe('org roles', () => {
  it.each([
    ['admin', 'create', 'workspace', true],
    ['admin', 'create', 'identity', true],
    ['member', 'create', 'workspace', true],
    ['member', 'read', 'identity', true],
    ['member', 'create', 'identity', false],
    ['no-access', 'read', 'workspace', false],
  ])('%s may %s on %s: %s', (role, action, subject, expected) => {
    expect(can(orgRoleRules(role) ?? [], action, subject)).toBe(expected);
  });

  it('admin covers every org action', () => {
    const admin = orgRoleRules('admin') ?? [];
    for (const [subject, actions] of Object.entries(ORG_SUBJECT_ACTIONS)) {
      for (const action of actions) expect(can(admin, action, subject)).toBe(true);
    }
  });

  it('knows its slugs', () => {
    expect(isPredefinedOrgRole('admin')).toBe(true);
    expect(isPredefinedOrgRole('viewer')).toBe(false);
    expect(orgRoleRules('viewer')).toBeUndefined();
  });
});

describe('isActive', () => {
  const now = new Date('2030-01-01T12:00:00Z');
  it.each([
    [{}, true],
    [{ isTemporary: false }, true],
    [{ isTemporary: true }, false],
    [
      {
        isTemporary: true,
        temporaryAccessStartTime: '2030-01-01T11:00:00Z',
        temporaryAccessEndTime: '2030-01-01T13:00:00Z',
      },
      true,
    ],
    [
      {
        isTemporary: true,
        temporaryAccessStartTime: '2030-01-01T12:00:00Z',
        temporaryAccessEndTime: '2030-01-01T13:00:00Z',
      },
      true,
    ],
    [
      {
        isTemporary: true,
        temporaryAccessStartTime: '2030-01-01T11:00:00Z',
        temporaryAccessEndTime: '2030-01-01T12:00:00Z',
      },
      false,
    ],
    [
      {
        isTemporary: true,
        temporaryAccessStartTime: '2030-01-01T12:30:00Z',
        temporaryAccessEndTime: '2030-01-01T13:00:00Z',
      },
      false,
    ],
  ])('%j -> %s', (grant, expected) => {
    expect(isActive(grant, now)).toBe(expected);
  });
});

describe('collectProjectRules', () => {
  const now = new Date('2030-01-01T12:00:00Z');
  const custom: Record<string, PermissionRule[]> = {
    'secret-writer': [{ subject: 'secrets', action: ['create'], conditions: { environment: 'dev' } }],
  };
  const lookup = (slug: string) => custom[slug];

  it('combines active roles, custom roles and privileges', () => {
    const rules = collectProjectRules({
      roles: [
        { role: 'viewer' },
        { role: 'secret-writer' },
        {
          role: 'admin',
          isTemporary: true,
          temporaryAccessStartTime: '2029-01-01T00:00:00Z',
          temporaryAccessEndTime: '2029-01-02T00:00:00Z',
        },
        { role: 'unknown' },
      ],
      customRoleRules: lookup,
      privileges: [
        {
          isTemporary: false,
          permissions: [{ subject: 'secrets', action: ['delete'], conditions: { environment: 'dev' } }],
        },
        {
          isTemporary: true,
          temporaryAccessStartTime: '2030-01-01T13:00:00Z',
          temporaryAccessEndTime: '2030-01-01T14:00:00Z',
          permissions: [{ subject: 'secrets', action: ['edit'] }],
        },
      ],
      now,
    });
    expect(can(rules, 'readValue', 'secrets', dev)).toBe(true);
    expect(can(rules, 'create', 'secrets', dev)).toBe(true);
    expect(can(rules, 'create', 'secrets', { environment: 'prod' })).toBe(false);
    expect(can(rules, 'delete', 'secrets', dev)).toBe(true);
    expect(can(rules, 'edit', 'secrets', dev)).toBe(false);
    expect(can(rules, 'delete', 'workspace')).toBe(false);
  });
});
