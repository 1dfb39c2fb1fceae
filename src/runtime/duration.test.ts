import { describe, expect, it } from 'vitest';
import {
  goDurationPattern,
  jitter,
  parseDuration,
  parseDurationExact,
  tryParseDuration,
} from './duration.ts';

describe('parseDuration', () => {
  it.each([
    { text: '0', ms: 0 },
    { text: '500ms', ms: 500 },
    { text: '30s', ms: 30_000 },
    { text: '10m', ms: 600_000 },
    { text: '1h30m', ms: 5_400_000 },
    { text: '1.5h', ms: 5_400_000 },
    { text: '2h45m10s', ms: 9_910_000 },
    { text: '.5s', ms: 500 },
    { text: '1500us', ms: 2 },
    { text: '5m0s', ms: 300_000 },
    { text: '2h3m4s5ms', ms: 7_384_005 },
  ])('reads $text as $ms ms', ({ text, ms }) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    { text: '', why: /empty/ },
    { text: '10', why: /unexpected "10"/ },
    { text: '1d', why: /unexpected "1d"/ },
    { text: '-5s', why: /negative/ },
    { text: '1h 30m', why: /unexpected " 30m"/ },
    { text: 'soon', why: /unexpected "soon"/ },
    { text: 'm10', why: /unexpected "m10"/ },
    { text: '10m junk', why: /unexpected " junk"/ },
  ])('rejects "$text" with a clear error', ({ text, why }) => {
    expect(() => parseDuration(text)).toThrow(why);
    expect(() => parseDuration(text)).toThrow(`cannot parse duration "${text}"`);
    expect(tryParseDuration(text)).toBeUndefined();
  });
});

describe('parseDurationExact', () => {
  it.each([
    { text: '1500us', ms: 1.5 },
    { text: '2µs', ms: 0.002 },
    { text: '1.5h', ms: 5_400_000 },
  ])('reads $text as exactly $ms ms', ({ text, ms }) => {
    expect(parseDurationExact(text)).toBeCloseTo(ms, 9);
  });
});

describe('goDurationPattern', () => {
  it.each(['90s', '1h30m', '250ms', '1.5h', '2µs', '87600h'])('accepts %j, which parses', (text) => {
    expect(goDurationPattern.test(text)).toBe(true);
    expect(tryParseDuration(text)).toBeDefined();
  });

  it.each(['0', '.5s', '1.s', '', '10', '-1s', '1d', '1 h', 'h'])('refuses %j', (text) => {
    expect(goDurationPattern.test(text)).toBe(false);
  });
});

describe('jitter', () => {
  it.each([
    { reason: 'no randomness adds nothing', random: 0, expected: 60_000 },
    { reason: 'the maximum stays below 110%', random: 0.999, expected: 65_994 },
    { reason: 'the middle adds 5%', random: 0.5, expected: 63_000 },
  ])('$reason', ({ random, expected }) => {
    expect(jitter(60_000, 0.1, () => random)).toBe(expected);
  });

  it('leaves zero and negative durations alone', () => {
    expect(jitter(0, 0.1, () => 0.9)).toBe(0);
    expect(jitter(-5, 0.1, () => 0.9)).toBe(0);
  });
});
