import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.ts';
import {
  assertCan,
  can,
  conditionsMatch,
  interpolateRules,
  invalidTemplateExpressions,
  normalizeRule,
  packRules,
  relevantRules,
  unpackRules,
  type PermissionContext,
  type PermissionRule,
} from './permission-rules.ts';

describe('normalizeRule', () => {
  it.each([
    [
      { subject: 'secrets', action: 'read' },
      { subject: 'secrets', action: ['read'] },
    ],
    [
      { subject: 'secrets', action: ['read', 'edit'], inverted: false, conditions: {} },
      { subject: 'secrets', action: ['read', 'edit'] },
    ],
    [
      { subject: 'secrets', action: 'edit', inverted: true, conditions: { environment: 'dev' } },
      { subject: 'secrets', action: ['edit'], inverted: true, conditions: { environment: 'dev' } },
    ],
  ])('%j', (input, expected) => {
    expect(normalizeRule(input)).toEqual(expected);
  });
});

describe('pack/unpack', () => {
  const rules: PermissionRule[] = [
    { subject: 'secrets', action: ['read', 'edit'] },
    { subject: 'secrets', action: ['delete'], conditions: { environment: 'prod' } },
    { subject: 'secret-folders', action: ['create'], inverted: true },
    { subject: 'secrets', action: ['edit'], inverted: true, conditions: { secretPath: { $glob: '/a/**' } } },
  ];

  it('packs into the CASL compact form', () => {
    expect(packRules(rules)).toEqual([
      ['read,edit', 'secrets'],
      ['delete', 'secrets', { environment: 'prod' }],
      ['create', 'secret-folders', 0, 1],
      ['edit', 'secrets', { secretPath: { $glob: '/a/**' } }, 1],
    ]);
  });

  it('round-trips', () => {
    expect(unpackRules(packRules(rules))).toEqual(rules);
    expect(JSON.parse(JSON.stringify(packRules(rules)))).toEqual(packRules(rules));
  });

  it('expands a packed subject list', () => {
    expect(unpackRules([['read', 'tags,environments']])).toEqual([
      { subject: 'tags', action: ['read'] },
      { subject: 'environments', action: ['read'] },
    ]);
  });
});

describe('conditionsMatch', () => {
  const ctx: PermissionContext = { environment: 'dev', secretPath: '/app/api', secretTags: ['a', 'b'] };
  it.each([
    [undefined, true],
    [{}, true],
    [{ environment: 'dev' }, true],
    [{ environment: 'prod' }, false],
    [{ environment: { $eq: 'dev' } }, true],
    [{ environment: { $ne: 'dev' } }, false],
    [{ environment: { $ne: 'prod' } }, true],
    [{ environment: { $in: ['prod', 'dev'] } }, true],
    [{ environment: { $in: ['prod'] } }, false],
    [{ environment: { $glob: 'd*' } }, true],
    [{ secretPath: { $glob: '/app/**' } }, true],
    [{ secretPath: { $glob: '/app/*' } }, true],
    [{ secretPath: { $glob: '/other/**' } }, false],
    [{ secretPath: { $eq: '/app/api' } }, true],
    [{ secretPath: { $in: ['/', '/app'] } }, false],
    [{ environment: 'dev', secretPath: { $glob: '/other' } }, false],
    [{ secretPath: { $glob: '/app/**', $ne: '/app/api' } }, false],
    [{ secretTags: { $in: ['b', 'z'] } }, true],
    [{ secretTags: { $in: ['z'] } }, false],
    [{ secretName: 'X' }, false],
    [{ secretName: { $ne: 'X' } }, true],
    [{ secretName: { $glob: '*' } }, false],
  ])('%j -> %s', (conditions, expected) => {
    expect(conditionsMatch(conditions, ctx)).toBe(expected);
  });
});

describe('can', () => {
  const devOnly: PermissionRule[] = [
    {
      subject: 'secrets',
      action: ['describeSecret', 'readValue', 'edit'],
      conditions: { environment: 'dev' },
    },
  ];
  const withDeny: PermissionRule[] = [
    { subject: 'secrets', action: ['read', 'edit', 'create'] },
    {
      subject: 'secrets',
      action: ['edit'],
      inverted: true,
      conditions: { secretPath: { $glob: '/locked/**' } },
    },
  ];
  const denyFirst: PermissionRule[] = [
    { subject: 'secrets', action: ['edit'], inverted: true },
    { subject: 'secrets', action: ['edit'] },
  ];

  it.each([
    ['no rules', [], 'read', 'secrets', undefined, false],
    ['matching env', devOnly, 'edit', 'secrets', { environment: 'dev', secretPath: '/' }, true],
    ['other env', devOnly, 'edit', 'secrets', { environment: 'prod', secretPath: '/' }, false],
    ['action not granted', devOnly, 'delete', 'secrets', { environment: 'dev' }, false],
    ['other subject', devOnly, 'edit', 'secret-folders', { environment: 'dev' }, false],
    ['type-level ignores conditions', devOnly, 'edit', 'secrets', undefined, true],
    ['deny by glob', withDeny, 'edit', 'secrets', { environment: 'dev', secretPath: '/locked/x' }, false],
    ['deny by glob covers the folder itself', withDeny, 'edit', 'secrets', { secretPath: '/locked' }, false],
    ['deny does not touch others', withDeny, 'edit', 'secrets', { secretPath: '/open' }, true],
    ['deny only its action', withDeny, 'create', 'secrets', { secretPath: '/locked/x' }, true],
    ['conditional deny ignored at type level', withDeny, 'edit', 'secrets', undefined, true],
    ['unconditional deny wins regardless of order', denyFirst, 'edit', 'secrets', { secretPath: '/' }, false],
    ['unconditional deny at type level', denyFirst, 'edit', 'secrets', undefined, false],
    ['legacy read grants readValue', withDeny, 'readValue', 'secrets', { secretPath: '/x' }, true],
    ['legacy read grants describeSecret', withDeny, 'describeSecret', 'secrets', undefined, true],
    ['specific action does not grant read', devOnly, 'read', 'secrets', { environment: 'dev' }, false],
  ] as const)('%s', (...[, rules, action, subject, context, expected]) => {
    expect(can(rules, action, subject, context)).toBe(expected);
  });

  it('denies readValue when legacy read is denied and readValue is not granted', () => {
    const rules: PermissionRule[] = [
      { subject: 'secrets', action: ['read'] },
      { subject: 'secrets', action: ['read'], inverted: true, conditions: { environment: 'prod' } },
    ];
    expect(can(rules, 'readValue', 'secrets', { environment: 'prod' })).toBe(false);
    expect(can(rules, 'readValue', 'secrets', { environment: 'dev' })).toBe(true);
  });
});

describe('assertCan', () => {
  const rules: PermissionRule[] = [
    { subject: 'secrets', action: ['edit'], conditions: { environment: 'dev' } },
    { subject: 'secrets', action: ['read'] },
  ];

  it('passes when allowed', () => {
    expect(() => assertCan(rules, 'edit', 'secrets', { environment: 'dev' })).not.toThrow();
  });

  it('throws PermissionDenied with the relevant rules', () => {
    let caught: unknown;
    try {
      assertCan(rules, 'edit', 'secrets', { environment: 'prod' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DomainError);
    const error = caught as DomainError;
    expect(error.status).toBe(403);
    expect(error.name).toBe('PermissionDenied');
    expect(error.message).toBe('You are not allowed to edit on secrets');
    expect(error.details).toEqual([
      { action: ['edit'], inverted: false, subject: 'secrets', conditions: { environment: 'dev' } },
    ]);
  });

  it('relevantRules lists only rules naming the action', () => {
    expect(relevantRules(rules, 'delete', 'secrets')).toEqual([]);
  });
});

describe('templates', () => {
  const rules: PermissionRule[] = [
    { subject: 'secrets', action: ['read'], conditions: { secretPath: { $glob: '/{{identity.id}}/**' } } },
    { subject: 'identity', action: ['edit'], conditions: { identityId: '{{ identity.id }}' } },
    {
      subject: 'secrets',
      action: ['edit'],
      conditions: { environment: { $in: ['{{identity.metadata.env}}'] } },
    },
  ];

  it('fills identity expressions', () => {
    const filled = interpolateRules(rules, { identity: { id: 'abc', metadata: { env: 'dev' } } });
    expect(filled[0]?.conditions).toEqual({ secretPath: { $glob: '/abc/**' } });
    expect(filled[1]?.conditions).toEqual({ identityId: 'abc' });
    expect(filled[2]?.conditions).toEqual({ environment: { $in: ['dev'] } });
    expect(can(filled, 'read', 'secrets', { secretPath: '/abc/x' })).toBe(true);
    expect(can(filled, 'read', 'secrets', { secretPath: '/other/x' })).toBe(false);
  });

  it('fills unknown paths with empty strings', () => {
    const filled = interpolateRules(rules, { identity: {} });
    expect(filled[1]?.conditions).toEqual({ identityId: '' });
  });

  it('reports non-identity expressions', () => {
    expect(invalidTemplateExpressions(rules)).toEqual([]);
    const bad: PermissionRule[] = [
      {
        subject: 'secrets',
        action: ['read'],
        conditions: { environment: '{{user.email}}', secretName: '{{ x }}' },
      },
    ];
    expect(invalidTemplateExpressions(bad)).toEqual(['user.email', 'x']);
  });
});
