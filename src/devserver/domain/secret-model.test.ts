import { describe, expect, it } from 'vitest';
import {
  childPath,
  isWithin,
  normalizeMetadata,
  normalizeSecretPath,
  normalizeSecretValue,
  parentPath,
} from './secret-model.ts';

describe('normalizeSecretPath', () => {
  it.each([
    [undefined, '/'],
    ['', '/'],
    ['/', '/'],
    ['app', '/app'],
    ['/app/', '/app'],
    ['//app//api//', '/app/api'],
    [' /app ', '/app'],
    ['/ключ', '/ключ'],
  ])('%j -> %j', (input, expected) => {
    expect(normalizeSecretPath(input)).toBe(expected);
  });
});

describe('path helpers', () => {
  it.each([
    ['/a/b', '/a'],
    ['/a', '/'],
    ['/', '/'],
  ])('parentPath(%j) = %j', (path, expected) => {
    expect(parentPath(path)).toBe(expected);
  });

  it('joins children', () => {
    expect(childPath('/', 'a')).toBe('/a');
    expect(childPath('/a', 'b')).toBe('/a/b');
  });

  it.each([
    ['/a', '/', true],
    ['/a', '/a', true],
    ['/a/b', '/a', true],
    ['/ab', '/a', false],
    ['/', '/a', false],
  ])('isWithin(%j, %j) = %s', (path, ancestor, expected) => {
    expect(isWithin(path, ancestor)).toBe(expected);
  });
});

describe('normalizeSecretValue', () => {
  it.each([
    ['value', 'value'],
    ['  value  ', 'value'],
    ['value\n', 'value\n'],
    ['value\n\n\n', 'value\n'],
    ['  value \n', 'value\n'],
    ['line1\nline2', 'line1\nline2'],
    ['\n', '\n'],
    ['', ''],
    ['value\r\n', 'value\n'],
    ['\tvalue\t', 'value'],
    ['ünïcødé 🔑', 'ünïcødé 🔑'],
  ])('%j -> %j', (input, expected) => {
    expect(normalizeSecretValue(input)).toBe(expected);
  });
});

describe('normalizeMetadata', () => {
  it('applies defaults', () => {
    expect(normalizeMetadata([{ key: 'a' }, { key: 'b', value: 'v', isEncrypted: true }])).toEqual([
      { key: 'a', value: '', isEncrypted: false },
      { key: 'b', value: 'v', isEncrypted: true },
    ]);
    expect(normalizeMetadata(undefined)).toEqual([]);
  });
});
