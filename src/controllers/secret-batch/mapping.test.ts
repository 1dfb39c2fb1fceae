import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Secret } from '../../client/index.ts';
import {
  batchItem,
  externalIdOf,
  fieldDifferences,
  normalizeValue,
  ownedKeysOf,
  parseExternalId,
  hashMatches,
  valueHash,
  type DesiredSecret,
} from './mapping.ts';

const secret = (extra: Partial<Secret> = {}): Secret => ({
  id: 's1',
  secretKey: 'K',
  secretValue: 'v',
  version: 1,
  ...extra,
});

describe('normalizeValue', () => {
  it.each([
    ['plain', 'abc', 'abc'],
    ['surrounding spaces trimmed', '  abc  ', 'abc'],
    ['one trailing newline kept', 'abc\n', 'abc\n'],
    ['several trailing newlines become one', 'abc\n\n\n', 'abc\n'],
    ['spaces before the newline trimmed', 'abc  \n', 'abc\n'],
    ['CRLF ending keeps one LF', 'abc\r\n', 'abc\n'],
    ['inner newlines kept', 'a\nb', 'a\nb'],
    ['empty', '', ''],
    ['only a newline', '\n', '\n'],
  ])('%s', (_reason, input, expected) => {
    expect(normalizeValue(input)).toBe(expected);
  });
});

describe('valueHash', () => {
  it('is keyed by the salt, bound to the key, and equal for values the service stores equally', () => {
    const h = valueHash('uid-1', 'K', 'value');
    expect(h).toMatch(/^[\w-]{22}$/);
    expect(valueHash('uid-1', 'K', '  value ')).toBe(h);
    expect(valueHash('uid-2', 'K', 'value')).not.toBe(h);
    expect(valueHash('uid-1', 'L', 'value')).not.toBe(h);
    expect(valueHash('uid-1', 'K', 'other')).not.toBe(h);
    expect(h).not.toContain('value');
  });

  it('matches its own hashes and the full hex HMAC older releases recorded', () => {
    const legacy = createHmac('sha256', 'uid-1').update('K').update('\0').update('value').digest('hex');
    expect(hashMatches(valueHash('uid-1', 'K', ' value'), 'uid-1', 'K', 'value')).toBe(true);
    expect(hashMatches(legacy, 'uid-1', 'K', 'value ')).toBe(true);
    expect(hashMatches(legacy, 'uid-1', 'K', 'other')).toBe(false);
    expect(hashMatches(valueHash('uid-1', 'K', 'value'), 'uid-1', 'K', 'other')).toBe(false);
    expect(hashMatches(legacy.slice(0, 22), 'uid-1', 'K', 'value')).toBe(false);
    expect(hashMatches(undefined, 'uid-1', 'K', 'value')).toBe(false);
  });
});

describe('external id', () => {
  it('round-trips projectId:environment:secretPath', () => {
    const scope = { projectId: 'p-1', environment: 'dev', secretPath: '/app/db' };
    expect(externalIdOf(scope)).toBe('p-1:dev:/app/db');
    expect(parseExternalId('p-1:dev:/app/db')).toEqual(scope);
    expect(parseExternalId('p-1:dev:/')).toEqual({ ...scope, secretPath: '/' });
  });

  it.each([['p-1'], ['p-1:dev'], ['p-1:dev:app'], [':dev:/']])('rejects %s', (id) => {
    expect(parseExternalId(id)).toBeUndefined();
  });
});

describe('batchItem', () => {
  it('sends the normalised value and only the fields the spec sets', () => {
    expect(batchItem({ key: 'K', value: ' v \n' })).toEqual({ secretKey: 'K', secretValue: 'v\n' });
  });

  it('maps every optional field and a rename', () => {
    const desired: DesiredSecret = {
      key: 'NEW',
      value: 'v',
      previousKey: 'OLD',
      comment: 'c',
      skipMultilineEncoding: true,
      reminder: { repeatDays: 7 },
      metadata: [{ key: 'owner', value: 'team' }],
      tagIds: ['t1'],
    };
    expect(batchItem(desired, 'OLD')).toEqual({
      secretKey: 'OLD',
      newSecretName: 'NEW',
      secretValue: 'v',
      secretComment: 'c',
      skipMultilineEncoding: true,
      secretReminderNote: null,
      secretReminderRepeatDays: 7,
      secretMetadata: [{ key: 'owner', value: 'team' }],
      tagIds: ['t1'],
    });
  });
});

describe('fieldDifferences', () => {
  const desired: DesiredSecret = {
    key: 'K',
    value: 'v',
    comment: 'c',
    skipMultilineEncoding: false,
    reminder: { note: 'rotate', repeatDays: 30 },
    metadata: [
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ],
    tagIds: ['t1', 't2'],
  };
  const same = secret({
    secretComment: 'c',
    skipMultilineEncoding: null,
    secretReminderNote: 'rotate',
    secretReminderRepeatDays: 30,
    secretMetadata: [
      { key: 'b', value: '2' },
      { key: 'a', value: '1' },
    ],
    tags: [
      { id: 't2', slug: 'two' },
      { id: 't1', slug: 'one' },
    ],
  });

  it('sees no difference when order and null defaults differ only', () => {
    expect(fieldDifferences(desired, same)).toEqual([]);
  });

  const cases: [string, Partial<Secret>][] = [
    ['comment', { secretComment: 'other' }],
    ['skipMultilineEncoding', { skipMultilineEncoding: true }],
    ['reminder', { secretReminderRepeatDays: 7 }],
    ['reminder', { secretReminderNote: null }],
    ['metadata', { secretMetadata: [{ key: 'a', value: '1' }] }],
    ['tagIds', { tags: [{ id: 't1', slug: 'one' }] }],
  ];
  it.each(cases)('reports %s', (field, change) => {
    expect(fieldDifferences(desired, { ...same, ...change })).toEqual([field]);
  });

  it('ignores fields the spec leaves unset', () => {
    expect(fieldDifferences({ key: 'K', value: 'v' }, secret({ secretComment: 'set in the UI' }))).toEqual(
      [],
    );
  });
});

describe('ownedKeysOf', () => {
  it('reads the recorded keys and ignores malformed entries', () => {
    expect(ownedKeysOf({ ownedKeys: [{ key: 'A', version: 2 }, { nope: 1 }, 'x'] })).toEqual([
      { key: 'A', version: 2 },
    ]);
    expect(ownedKeysOf(undefined)).toEqual([]);
    expect(ownedKeysOf({ ownedKeys: 'x' })).toEqual([]);
  });
});
