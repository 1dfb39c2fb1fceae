import { describe, expect, it } from 'vitest';
import {
  commonAncestor,
  covers,
  MAX_REGISTRATIONS,
  registrationKey,
  registrationsFor,
  SECRET_EVENTS,
} from './registrations.ts';

const scope = (environment: string, secretPath: string) => ({ environment, secretPath });

describe('commonAncestor', () => {
  it.each([
    [['/a/b', '/a/c'], '/a'],
    [['/a/b/c', '/a/b'], '/a/b'],
    [['/a', '/b'], '/'],
    [['/'], '/'],
    [['/app'], '/app'],
    [['/app', '/apple'], '/'],
  ])('%j → %s', (paths, expected) => {
    expect(commonAncestor(paths)).toBe(expected);
  });
});

describe('registrationsFor', () => {
  it('is empty without scopes', () => {
    expect(registrationsFor([])).toEqual([]);
  });

  it('registers each event kind for each exact scope while they fit (duplicates merged)', () => {
    const regs = registrationsFor([scope('dev', '/a'), scope('prod', '/'), scope('dev', '/a')]);
    expect(regs).toHaveLength(6);
    expect(regs.slice(0, 3)).toEqual(
      SECRET_EVENTS.map((event) => ({ event, conditions: { environmentSlug: 'dev', secretPath: '/a' } })),
    );
    expect(regs[3]?.conditions).toEqual({ environmentSlug: 'prod', secretPath: '/' });
  });

  it('merges paths per environment to their common ancestor when exact scopes exceed the limit', () => {
    const regs = registrationsFor([
      scope('dev', '/app/a'),
      scope('dev', '/app/b'),
      scope('dev', '/app/c'),
      scope('prod', '/x'),
    ]);
    expect(regs.length).toBeLessThanOrEqual(MAX_REGISTRATIONS);
    expect(regs.map((r) => r.conditions)).toEqual([
      ...SECRET_EVENTS.map(() => ({ environmentSlug: 'dev', secretPath: '/app' })),
      ...SECRET_EVENTS.map(() => ({ environmentSlug: 'prod', secretPath: '/x' })),
    ]);
  });

  it('merges a thousand folders of one environment, and a root folder among them, in one pass', () => {
    const many = Array.from({ length: 1000 }, (_, i) => scope('dev', `/bench/b${i}/inner`));
    expect(registrationsFor(many).map((r) => r.conditions)).toEqual(
      SECRET_EVENTS.map(() => ({ environmentSlug: 'dev', secretPath: '/bench' })),
    );
    expect(registrationsFor([...many, scope('dev', '/')]).map((r) => r.conditions)).toEqual(
      SECRET_EVENTS.map(() => ({ environmentSlug: 'dev', secretPath: '/' })),
    );
  });

  it('watches the whole project when even the environments do not fit', () => {
    const regs = registrationsFor(['a', 'b', 'c', 'd'].map((env) => scope(env, '/')));
    expect(regs).toEqual(SECRET_EVENTS.map((event) => ({ event })));
  });

  it('honours a smaller limit', () => {
    expect(registrationsFor([scope('dev', '/a'), scope('dev', '/b')], 3)).toEqual(
      SECRET_EVENTS.map((event) => ({ event, conditions: { environmentSlug: 'dev', secretPath: '/' } })),
    );
  });

  it('yields the same key for the same scopes in any order', () => {
    const one = registrationsFor([scope('dev', '/a'), scope('prod', '/b')]);
    const two = registrationsFor([scope('prod', '/b'), scope('dev', '/a')]);
    expect(registrationKey(one)).toBe(registrationKey(two));
    expect(registrationKey(one)).not.toBe(registrationKey(registrationsFor([scope('dev', '/a')])));
  });
});

describe('covers', () => {
  it.each([
    ['the whole project', registrationsFor([{ environment: 'dev', secretPath: '/x' }], 0), true],
    ['the exact folder', registrationsFor([{ environment: 'dev', secretPath: '/a/b' }]), true],
    ['an ancestor', registrationsFor([{ environment: 'dev', secretPath: '/a' }]), true],
    ['another environment', registrationsFor([{ environment: 'prod', secretPath: '/' }]), false],
    ['a sibling folder', registrationsFor([{ environment: 'dev', secretPath: '/c' }]), false],
    ['only updates', [{ event: 'secret:update' as const }], false],
  ])('%s', (_reason, registrations, expected) => {
    expect(covers(registrations, { environment: 'dev', secretPath: '/a/b' })).toBe(expected);
  });
});
