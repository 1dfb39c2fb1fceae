import { describe, expect, it } from 'vitest';
import { keyFilter, matchesGlob } from './globs.ts';
import { mergeSources } from './merge.ts';
import { inPrecedenceOrder } from './sources.ts';

describe('key globs', () => {
  it('matches whole keys with * and ?, case-sensitively, other characters literally', () => {
    expect(matchesGlob('DB_USER', 'DB_*')).toBe(true);
    expect(matchesGlob('XDB_USER', 'DB_*')).toBe(false);
    expect(matchesGlob('DB_USER', 'db_*')).toBe(false);
    expect(matchesGlob('A1', 'A?')).toBe(true);
    expect(matchesGlob('A12', 'A?')).toBe(false);
    expect(matchesGlob('a.b', 'a.b')).toBe(true);
    expect(matchesGlob('axb', 'a.b')).toBe(false);
    expect(matchesGlob('anything', '*')).toBe(true);
  });

  it('includes every key without include, then applies exclude', () => {
    const all = keyFilter(undefined, ['*_OLD']);
    expect(['A', 'B_OLD'].filter(all)).toEqual(['A']);
    const some = keyFilter(['DB_*', 'API_KEY'], ['DB_DEBUG']);
    expect(['DB_USER', 'DB_DEBUG', 'API_KEY', 'OTHER'].filter(some)).toEqual(['DB_USER', 'API_KEY']);
    expect(['A'].filter(keyFilter([], []))).toEqual(['A']);
  });
});

describe('mergeSources', () => {
  it('merges in order, the later source winning, and lists collisions by key only', () => {
    const merged = mergeSources([
      [
        ['A', '1'],
        ['B', '1'],
      ],
      [
        ['B', '2'],
        ['C', '2'],
      ],
      [['A', '3']],
    ]);
    expect(merged.data).toEqual({ A: '3', B: '2', C: '2' });
    expect(merged.collisions).toEqual(['A', 'B']);
  });

  it('counts a key repeated inside one source (two folders of a recursive read) as a collision', () => {
    expect(
      mergeSources([
        [
          ['K', 'root'],
          ['K', 'deep'],
        ],
      ]),
    ).toEqual({ data: { K: 'deep' }, collisions: ['K'] });
  });
});

describe('inPrecedenceOrder', () => {
  const secret = (key: string, secretPath: string) => ({
    id: `${secretPath}:${key}`,
    secretKey: key,
    secretValue: secretPath,
    version: 1,
    secretPath,
  });

  it('puts imports first, then the folders parents before children (deepest wins)', () => {
    const ordered = inPrecedenceOrder({
      secrets: [secret('K', '/app/db'), secret('K', '/app'), secret('K', '/app/a')],
      imports: [{ secretPath: '/shared', environment: 'dev', secrets: [secret('K', '/shared')] }],
    });
    expect(ordered.map((s) => s.secretPath)).toEqual(['/shared', '/app', '/app/a', '/app/db']);
  });
});
