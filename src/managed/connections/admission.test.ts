import { describe, expect, it } from 'vitest';
import { isNamespaceAllowed, matchesSelector, type LabelSelector } from './admission.ts';

describe('matchesSelector', () => {
  const labels = { team: 'a', tier: 'prod' };
  it.each<[string, LabelSelector, boolean]>([
    ['empty selector matches everything', {}, true],
    ['matchLabels all present', { matchLabels: { team: 'a', tier: 'prod' } }, true],
    ['matchLabels value differs', { matchLabels: { team: 'b' } }, false],
    ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['dev', 'prod'] }] }, true],
    ['In without the label', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['x'] }] }, false],
    ['NotIn', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['prod'] }] }, false],
    [
      'NotIn without the label',
      { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }] },
      true,
    ],
    ['Exists', { matchExpressions: [{ key: 'team', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] }, false],
    [
      'labels and expressions are ANDed',
      { matchLabels: { team: 'a' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['dev'] }] },
      false,
    ],
  ])('%s', (_reason, selector, expected) => {
    expect(matchesSelector(selector, labels)).toBe(expected);
  });
});

describe('isNamespaceAllowed', () => {
  it('admits by name even when the labels are unknown', () => {
    expect(isNamespaceAllowed({ names: ['a', 'b'] }, 'b', undefined)).toBe(true);
    expect(isNamespaceAllowed({ names: ['a'] }, 'b', {})).toBe(false);
  });

  it('admits by selector only with known labels', () => {
    const allowed = { selector: { matchLabels: { coffer: 'yes' } } };
    expect(isNamespaceAllowed(allowed, 'x', { coffer: 'yes' })).toBe(true);
    expect(isNamespaceAllowed(allowed, 'x', { coffer: 'no' })).toBe(false);
    expect(isNamespaceAllowed(allowed, 'x', undefined)).toBe(false);
  });

  it('admits the union of names and selector', () => {
    const allowed = { names: ['listed'], selector: { matchLabels: { coffer: 'yes' } } };
    expect(isNamespaceAllowed(allowed, 'listed', {})).toBe(true);
    expect(isNamespaceAllowed(allowed, 'other', { coffer: 'yes' })).toBe(true);
    expect(isNamespaceAllowed(allowed, 'other', {})).toBe(false);
  });
});
