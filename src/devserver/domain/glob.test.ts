import { describe, expect, it } from 'vitest';
import { globMatch, hasGlobSyntax } from './glob.ts';

describe('globMatch', () => {
  it.each([
    ['/', '/', true],
    ['/', '/app', false],
    ['/app', '/app', true],
    ['/app', '/app/', true],
    ['/app', '/apple', false],
    ['/app/*', '/app/x', true],
    ['/app/*', '/app/x/y', false],
    ['/app/*', '/app', false],
    ['/app/*', '/app/', false],
    ['/app/**', '/app', true],
    ['/app/**', '/app/x', true],
    ['/app/**', '/app/x/y/z', true],
    ['/app/**', '/apple', false],
    ['/app/**', '/other/app', false],
    ['/**', '/', true],
    ['/**', '/a/b', true],
    ['**', '/a/b', true],
    ['**', '', true],
    ['**/b', '/a/b', true],
    ['**/b', 'b', true],
    ['**/b', '/a/c', false],
    ['/a/**/b', '/a/b', true],
    ['/a/**/b', '/a/x/y/b', true],
    ['/a/**/b', '/a/x/y/c', false],
    ['/a/*/c', '/a/b/c', true],
    ['/a/*/c', '/a/b/d/c', false],
    ['/ap?', '/app', true],
    ['/ap?', '/ap/', false],
    ['/ap?', '/ap', false],
    ['/svc-*', '/svc-api', true],
    ['/svc-*', '/svc-', true],
    ['/svc-*', '/svc', false],
    ['/[ab]pp', '/bpp', true],
    ['/[ab]pp', '/cpp', false],
    ['/[a-c]pp', '/cpp', true],
    ['/[!a]pp', '/bpp', true],
    ['/[!a]pp', '/app', false],
    ['/{dev,prod}/x', '/prod/x', true],
    ['/{dev,prod}/x', '/test/x', false],
    ['/{dev,*-api}', '/user-api', true],
    ['/a.b', '/a.b', true],
    ['/a.b', '/axb', false],
    ['/(x)', '/(x)', true],
    ['/ключ/*', '/ключ/значение', true],
    ['DB_*', 'DB_PASSWORD', true],
    ['DB_*', 'API_KEY', false],
    ['/unclosed[', '/unclosed[', true],
    ['/brace{', '/brace{', true],
    ['/{single}', '/{single}', true],
  ])('%j vs %j -> %s', (pattern, value, expected) => {
    expect(globMatch(pattern, value)).toBe(expected);
  });

  it('is case-sensitive', () => {
    expect(globMatch('/App', '/app')).toBe(false);
  });
});

describe('hasGlobSyntax', () => {
  it.each([
    ['/app', false],
    ['/app/**', true],
    ['/a?', true],
    ['/{a,b}', true],
    ['/[a]', true],
    ['/a-b_c', false],
  ])('%j -> %s', (text, expected) => {
    expect(hasGlobSyntax(text)).toBe(expected);
  });
});
