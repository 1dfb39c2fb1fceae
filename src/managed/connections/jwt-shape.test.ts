import { describe, expect, it } from 'vitest';
import { jwtShape } from './jwt-shape.ts';

const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const header = part({ alg: 'RS256', kid: 'k1' });

describe('jwtShape', () => {
  it('reads the audiences of a JWT whose aud is a string, a list or absent', () => {
    expect(jwtShape(`${header}.${part({ aud: 'coffer' })}.c2ln`)).toEqual({ audiences: ['coffer'] });
    expect(jwtShape(`${header}.${part({ aud: ['a', 'b'], sub: 'x' })}.c2ln`)).toEqual({
      audiences: ['a', 'b'],
    });
    expect(jwtShape(`${header}.${part({ sub: 'x' })}.c2ln`)).toEqual({ audiences: [] });
  });

  it.each([
    ['plain text', 'HOME=/root\0PATH=/bin', 'it is not three base64url parts separated by dots'],
    [
      'two parts',
      `${header}.${part({ aud: 'coffer' })}`,
      'it is not three base64url parts separated by dots',
    ],
    ['an empty signature (alg none)', `${header}.${part({ aud: 'coffer' })}.`, 'it is not three base64url'],
    ['four parts', `${header}.${part({})}.c2ln.c2ln`, 'it is not three base64url'],
    ['standard base64 padding', `${header}.${part({})}=.c2ln`, 'it is not three base64url'],
    [
      'a header that is not JSON',
      `bm90LWpzb24.${part({})}.c2ln`,
      'its header is not a JSON object naming its alg',
    ],
    ['a header without alg', `${part({ typ: 'JWT' })}.${part({})}.c2ln`, 'its header is not a JSON object'],
    [
      'a header with an empty alg',
      `${part({ alg: '' })}.${part({})}.c2ln`,
      'its header is not a JSON object',
    ],
    ['a payload that is not JSON', `${header}.bm90LWpzb24.c2ln`, 'its payload is not a JSON object'],
    ['a payload that is a string', `${header}.${part('coffer')}.c2ln`, 'its payload is not a JSON object'],
    ['an aud that is a number', `${header}.${part({ aud: 7 })}.c2ln`, 'its payload is not a JSON object'],
  ])('refuses %s, naming no content', (_what, token, problem) => {
    const shape = jwtShape(token);
    expect(shape).toHaveProperty('problem');
    const text = (shape as { problem: string }).problem;
    expect(text).toContain(problem);
    expect(text).not.toMatch(/HOME|PATH|coffer|bm90/);
  });
});
