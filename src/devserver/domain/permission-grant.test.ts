import { describe, expect, it } from 'vitest';
import { isDomainError } from './errors.ts';
import { assertMayGrantPrivileges, GRANT_OPERATION, rolesNeedGrant } from './permission-grant.ts';
import type { PermissionRule } from './permission-rules.ts';

function refusalOf(rules: PermissionRule[]): unknown {
  try {
    assertMayGrantPrivileges(rules, GRANT_OPERATION.privilege);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('assertMayGrantPrivileges', () => {
  it('allows grant-privileges on identity, also when limited by a condition', () => {
    expect(refusalOf([{ subject: 'identity', action: ['grant-privileges'] }])).toBeUndefined();
    const limited = { subject: 'identity', action: ['grant-privileges'], conditions: { identityId: 'a' } };
    expect(refusalOf([limited])).toBeUndefined();
  });

  it('refuses without it (identity CRUD or grants on members do not count), or when denied', () => {
    const cases: PermissionRule[][] = [
      [],
      [{ subject: 'identity', action: ['read', 'create', 'edit', 'delete'] }],
      [{ subject: 'member', action: ['grant-privileges'] }],
      [
        { subject: 'identity', action: ['grant-privileges'] },
        { subject: 'identity', action: ['grant-privileges'], inverted: true },
      ],
    ];
    for (const rules of cases) {
      const error = refusalOf(rules);
      expect(isDomainError(error)).toBe(true);
      expect(error).toMatchObject({
        status: 403,
        name: 'PermissionBoundaryError',
        message:
          'Failed to update more privileged actor. Actor is missing permission grant-privileges on identity',
        details: { missingPermissions: [{ action: 'grant-privileges', subject: 'identity' }] },
      });
    }
  });
});

describe('rolesNeedGrant', () => {
  it('is false only when every role is no-access', () => {
    expect(rolesNeedGrant(['no-access'])).toBe(false);
    expect(rolesNeedGrant(['no-access', 'viewer'])).toBe(true);
    expect(rolesNeedGrant(['custom-slug'])).toBe(true);
  });
});
