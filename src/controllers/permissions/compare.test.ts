import { describe, expect, it } from 'vitest';
import { canonicalRule, samePermissions, type RuleLike } from './compare.ts';
import { ruleRequest, rulesRequest } from './request.ts';

const read: RuleLike = { subject: 'secrets', action: 'read' };

describe('samePermissions', () => {
  it.each<{ reason: string; desired: RuleLike[]; actual: RuleLike[] }>([
    {
      reason: 'a single action vs a one-element list',
      desired: [read],
      actual: [{ ...read, action: ['read'] }],
    },
    {
      reason: 'action order and duplicates',
      desired: [{ subject: 'secrets', action: ['edit', 'read', 'read'] }],
      actual: [{ subject: 'secrets', action: ['read', 'edit'] }],
    },
    { reason: 'absent inverted vs false', desired: [read], actual: [{ ...read, inverted: false }] },
    { reason: 'null inverted vs absent', desired: [read], actual: [{ ...read, inverted: null }] },
    { reason: 'absent vs empty conditions', desired: [read], actual: [{ ...read, conditions: {} }] },
    {
      reason: 'condition key order',
      desired: [{ ...read, conditions: { environment: 'dev', secretPath: { $glob: '/a/**' } } }],
      actual: [{ ...read, conditions: { secretPath: { $glob: '/a/**' }, environment: 'dev' } }],
    },
    {
      reason: 'a plain string vs $eq',
      desired: [{ ...read, conditions: { environment: 'dev' } }],
      actual: [{ ...read, conditions: { environment: { $eq: 'dev' } } }],
    },
    {
      reason: 'a $glob without wildcards vs a plain path',
      desired: [{ ...read, conditions: { secretPath: { $glob: '/app' } } }],
      actual: [{ ...read, conditions: { secretPath: '/app' } }],
    },
    {
      reason: '$in order',
      desired: [{ ...read, conditions: { environment: { $in: ['prod', 'dev'] } } }],
      actual: [{ ...read, conditions: { environment: { $in: ['dev', 'prod'] } } }],
    },
    {
      reason: 'rule order without inverted rules',
      desired: [read, { subject: 'secret-folders', action: 'create' }],
      actual: [
        { subject: 'secret-folders', action: ['create'] },
        { ...read, action: ['read'] },
      ],
    },
    {
      reason: 'a one-element subject list',
      desired: [read],
      actual: [{ subject: ['secrets'], action: ['read'] }],
    },
    {
      reason: 'path conditions on a subject that takes none (the service drops them)',
      desired: [{ subject: 'role', action: 'read', conditions: { environment: 'dev' } }],
      actual: [{ subject: 'role', action: ['read'] }],
    },
    { reason: 'two empty lists', desired: [], actual: [] },
  ])('equal: $reason', ({ desired, actual }) => {
    expect(samePermissions(desired, actual)).toBe(true);
    expect(samePermissions(actual, desired)).toBe(true);
  });

  it.each<{ reason: string; desired: RuleLike[]; actual: RuleLike[] }>([
    { reason: 'another action', desired: [read], actual: [{ ...read, action: ['edit'] }] },
    { reason: 'an extra action', desired: [read], actual: [{ ...read, action: ['read', 'edit'] }] },
    { reason: 'another subject', desired: [read], actual: [{ subject: 'secret-folders', action: ['read'] }] },
    { reason: 'inverted', desired: [read], actual: [{ ...read, inverted: true }] },
    {
      reason: 'a condition added',
      desired: [read],
      actual: [{ ...read, conditions: { environment: 'dev' } }],
    },
    {
      reason: 'another environment',
      desired: [{ ...read, conditions: { environment: 'dev' } }],
      actual: [{ ...read, conditions: { environment: 'prod' } }],
    },
    {
      reason: 'a glob vs an equal path',
      desired: [{ ...read, conditions: { secretPath: { $glob: '/app/**' } } }],
      actual: [{ ...read, conditions: { secretPath: '/app' } }],
    },
    {
      reason: 'another glob',
      desired: [{ ...read, conditions: { secretPath: { $glob: '/app/*' } } }],
      actual: [{ ...read, conditions: { secretPath: { $glob: '/app/**' } } }],
    },
    {
      reason: 'a condition field the spec cannot express (added behind our back)',
      desired: [read],
      actual: [{ ...read, conditions: { secretName: 'DB_PASSWORD' } }],
    },
    { reason: 'a rule more', desired: [read], actual: [read, read] },
    { reason: 'a rule less', desired: [read, { ...read, action: 'edit' }], actual: [read] },
    {
      reason: 'rule order with an inverted rule',
      desired: [read, { ...read, action: 'edit', inverted: true }],
      actual: [{ ...read, action: 'edit', inverted: true }, read],
    },
  ])('different: $reason', ({ desired, actual }) => {
    expect(samePermissions(desired, actual)).toBe(false);
    expect(samePermissions(actual, desired)).toBe(false);
  });
});

describe('canonicalRule', () => {
  it('sorts conditions and actions and defaults inverted', () => {
    expect(
      canonicalRule({
        subject: 'secrets',
        action: ['readValue', 'describeSecret'],
        conditions: { secretPath: { $glob: '/**' }, environment: 'dev' },
      }),
    ).toEqual({
      subject: 'secrets',
      actions: ['describeSecret', 'readValue'],
      conditions: [
        ['environment', '$eq', 'dev'],
        ['secretPath', '$glob', '/**'],
      ],
      inverted: false,
    });
  });
});

describe('ruleRequest', () => {
  it('sends a list of actions, no empty conditions and inverted only when true', () => {
    expect(ruleRequest({ subject: 'secrets', action: 'read', conditions: {}, inverted: false })).toEqual({
      subject: 'secrets',
      action: ['read'],
    });
  });

  it('keeps environment, secretPath and inverted', () => {
    expect(
      rulesRequest([
        {
          subject: 'secrets',
          action: ['read', 'edit'],
          conditions: { environment: 'dev', secretPath: { $glob: '/app/**' } },
          inverted: true,
        },
      ]),
    ).toEqual([
      {
        subject: 'secrets',
        action: ['read', 'edit'],
        conditions: { environment: 'dev', secretPath: { $glob: '/app/**' } },
        inverted: true,
      },
    ]);
  });

  it('produces what the comparison treats as equal to the spec rule', () => {
    const spec = { subject: 'secrets', action: 'read', conditions: { environment: 'dev' }, inverted: false };
    expect(samePermissions([spec], [ruleRequest(spec)])).toBe(true);
  });
});
