import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.ts';
import { parseRateLimitSpec, RateLimiter, SERVICE_DEFAULT_LIMITS } from './rate-limiter.ts';

function limiter(limits: Record<string, number> = { read: 3 }) {
  const clock = { now: 1_000_000 };
  return { clock, rl: new RateLimiter({ limits, now: () => clock.now }) };
}

describe('RateLimiter', () => {
  it('allows up to the limit in a window, then refuses until it ends', () => {
    const { clock, rl } = limiter();
    const decisions = [1, 2, 3, 4].map(() => rl.check('read', '10.0.0.1'));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(decisions[3]).toMatchObject({ limit: 3, resetSeconds: 60, retryAfterSeconds: 60 });
    clock.now += 45_500;
    expect(rl.check('read', '10.0.0.1')).toMatchObject({
      allowed: false,
      retryAfterSeconds: 15,
      resetSeconds: 15,
    });
    clock.now += 14_500;
    expect(rl.check('read', '10.0.0.1')).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 60 });
  });

  it('keeps buckets and clients apart', () => {
    const { rl } = limiter({ read: 1, write: 1 });
    expect(rl.check('read', 'a').allowed).toBe(true);
    expect(rl.check('read', 'a').allowed).toBe(false);
    expect(rl.check('read', 'b').allowed).toBe(true);
    expect(rl.check('write', 'a').allowed).toBe(true);
  });

  it('treats unconfigured buckets as unlimited', () => {
    const { rl } = limiter({});
    for (let i = 0; i < 1000; i += 1) expect(rl.check('read', 'a').allowed).toBe(true);
    expect(rl.check('__proto__', 'a')).toMatchObject({ allowed: true, limit: Infinity });
    expect(rl.size).toBe(0);
  });

  it.each([
    [0, 60],
    [999, 60],
    [1_000, 59],
    [59_001, 1],
  ])('after %d ms the reset is %d s', (elapsed, seconds) => {
    const { clock, rl } = limiter({ read: 100 });
    rl.check('read', 'a');
    clock.now += elapsed;
    expect(rl.check('read', 'a').resetSeconds).toBe(seconds);
  });

  it('throws the service 429 from consume', () => {
    const { rl } = limiter({ read: 1 });
    expect(rl.consume('read', 'a').allowed).toBe(true);
    let error: unknown;
    try {
      rl.consume('read', 'a');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      status: 429,
      name: 'RateLimitExceeded',
      message: 'Rate limit exceeded. Please try again in 60 seconds',
      retryAfterSeconds: 60,
    });
  });

  it('sweeps expired windows and can reset', () => {
    const { clock, rl } = limiter({ read: 5 });
    rl.check('read', 'a');
    rl.check('read', 'b');
    expect(rl.size).toBe(2);
    clock.now += 61_000;
    rl.check('read', 'c');
    expect(rl.size).toBe(1);
    rl.reset();
    expect(rl.size).toBe(0);
  });

  it('has the service defaults', () => {
    expect(SERVICE_DEFAULT_LIMITS).toEqual({ read: 60, write: 200, secrets: 60 });
  });
});

describe('parseRateLimitSpec', () => {
  it.each([
    ['read=60,write=200,secrets=60', { read: 60, write: 200, secrets: 60 }],
    [' read=5 ', { read: 5 }],
    ['', {}],
    ['read=1,read=2', { read: 2 }],
  ])('%j', (spec, expected) => {
    expect(parseRateLimitSpec(spec)).toEqual(expected);
  });

  it.each(['read', 'read=0', 'read=-1', 'read=1.5', '=3', 'read=abc', '9x=1'])('rejects %j', (spec) => {
    expect(() => parseRateLimitSpec(spec)).toThrow(/cannot parse rate limit/);
  });
});
