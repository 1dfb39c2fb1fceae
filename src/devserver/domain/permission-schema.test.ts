import { describe, expect, it } from 'vitest';
import {
  backfillV1Rules,
  OrgPermissionRuleSchema,
  privilegePermissionToV1,
  PrivilegePermissionSchema,
  ProjectPermissionRuleSchema,
  PermissionRuleV1Schema,
  v1ResponseRules,
} from './permission-schema.ts';

describe('ProjectPermissionRuleSchema', () => {
  it.each([
    [
      { subject: 'secrets', action: 'read' },
      { subject: 'secrets', action: ['read'] },
    ],
    [
      { subject: 'secrets', action: ['describeSecret', 'readValue'], conditions: { environment: 'dev' } },
      { subject: 'secrets', action: ['describeSecret', 'readValue'], conditions: { environment: 'dev' } },
    ],
    [
      {
        subject: 'secrets',
        action: 'edit',
        inverted: true,
        conditions: { secretPath: { $glob: '/a/**' }, environment: { $in: ['dev'] } },
      },
      {
        subject: 'secrets',
        action: ['edit'],
        inverted: true,
        conditions: { secretPath: { $glob: '/a/**' }, environment: { $in: ['dev'] } },
      },
    ],
    [
      { subject: 'role', action: 'read', conditions: { environment: 'dev' } },
      { subject: 'role', action: ['read'] },
    ],
    [
      { subject: 'secrets', action: 'read', conditions: { environment: 'dev', bogus: 'x' } },
      { subject: 'secrets', action: ['read'], conditions: { environment: 'dev' } },
    ],
    [
      { subject: 'secret-events', action: ['subscribe-on-created', 'subscribe-on-updated'] },
      { subject: 'secret-events', action: ['subscribe-on-created', 'subscribe-on-updated'] },
    ],
    [
      { subject: 'identity', action: 'edit', conditions: { identityId: 'x' } },
      { subject: 'identity', action: ['edit'], conditions: { identityId: 'x' } },
    ],
  ])('parses %j', (input, expected) => {
    expect(ProjectPermissionRuleSchema.parse(input)).toEqual(expected);
  });

  it.each([
    [{ subject: 'nope', action: 'read' }, 'Invalid subject "nope"'],
    [{ subject: 'secrets', action: 'fly' }, 'Invalid action "fly" for subject "secrets"'],
    [{ subject: 'workspace', action: ['edit', 'read'] }, 'Invalid action "read" for subject "workspace"'],
    [{ subject: 'secrets', action: [] }, undefined],
    [{ subject: 'secrets', action: '' }, undefined],
    [{ subject: 'secrets', action: 'read', conditions: { environment: { $regex: '.*' } } }, undefined],
    [{ subject: 'secrets', action: 'read', conditions: { environment: { $in: [] } } }, undefined],
    [{ subject: 'secrets', action: 'read', inverted: 'yes' }, undefined],
  ])('rejects %j', (input, message) => {
    const result = ProjectPermissionRuleSchema.safeParse(input);
    expect(result.success).toBe(false);
    if (message && !result.success) expect(result.error.issues.map((i) => i.message)).toContain(message);
  });
});

describe('OrgPermissionRuleSchema', () => {
  it('accepts org subjects and drops conditions', () => {
    expect(
      OrgPermissionRuleSchema.parse({ subject: 'workspace', action: 'create', conditions: { a: 'b' } }),
    ).toEqual({
      subject: 'workspace',
      action: ['create'],
    });
    expect(OrgPermissionRuleSchema.safeParse({ subject: 'secrets', action: 'read' }).success).toBe(false);
  });
});

describe('v1 rules', () => {
  it('validates v1 rules', () => {
    expect(
      PermissionRuleV1Schema.safeParse({
        action: 'read',
        subject: 'secrets',
        conditions: { secretPath: { $glob: '/' } },
      }).success,
    ).toBe(true);
    expect(PermissionRuleV1Schema.safeParse({ action: 'readValue', subject: 'secrets' }).success).toBe(false);
    expect(PermissionRuleV1Schema.safeParse({ action: 'read', subject: 'bogus' }).success).toBe(false);
  });

  it('expands privilegePermission into one rule per action', () => {
    const permission = PrivilegePermissionSchema.parse({
      actions: ['read', 'edit'],
      subject: 'secrets',
      conditions: { environment: 'dev', secretPath: { $glob: '/app/**' } },
    });
    expect(privilegePermissionToV1(permission)).toEqual([
      {
        action: 'read',
        subject: 'secrets',
        conditions: { environment: 'dev', secretPath: { $glob: '/app/**' } },
      },
      {
        action: 'edit',
        subject: 'secrets',
        conditions: { environment: 'dev', secretPath: { $glob: '/app/**' } },
      },
    ]);
  });

  it('backfills secrets rules onto imports, dynamic secrets and folders', () => {
    const conditions = { environment: 'dev' };
    const out = backfillV1Rules([
      { action: 'read', subject: 'secrets', conditions },
      { action: 'edit', subject: 'secrets', conditions },
      { action: 'read', subject: 'tags' },
    ]);
    expect(out).toEqual([
      { subject: 'secrets', action: ['read'], conditions },
      { subject: 'secrets', action: ['edit'], conditions },
      { subject: 'tags', action: ['read'] },
      { subject: 'secret-imports', action: ['read'], conditions },
      { subject: 'secrets', action: ['read', 'readValue'], conditions },
      { subject: 'dynamic-secrets', action: ['read-root-credential'], conditions },
      { subject: 'secret-imports', action: ['edit'], conditions },
      { subject: 'secrets', action: ['edit'], conditions },
      { subject: 'dynamic-secrets', action: ['edit-root-credential', 'lease'], conditions },
      { subject: 'secret-folders', action: ['edit'], conditions },
    ]);
  });

  it('keeps explicit folder rules only when asked and then adds no derived ones', () => {
    const input = [
      { action: 'create' as const, subject: 'secrets' },
      { action: 'read' as const, subject: 'secret-folders' },
    ];
    expect(backfillV1Rules(input).filter((r) => r.subject === 'secret-folders')).toEqual([]);
    expect(backfillV1Rules(input, true).filter((r) => r.subject === 'secret-folders')).toEqual([
      { subject: 'secret-folders', action: ['read'] },
    ]);
  });

  it('hides derived subjects in v1 responses', () => {
    const out = v1ResponseRules(backfillV1Rules([{ action: 'delete', subject: 'secrets' }]));
    expect(out.map((r) => r.subject)).toEqual(['secrets', 'secrets']);
  });
});
