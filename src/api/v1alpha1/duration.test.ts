import { describe, expect, it } from 'vitest';
import { parseAccessRange, parseGoDuration } from './duration.ts';

describe('parseGoDuration', () => {
  it.each([
    ['10s', 10_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    ['1500us', 1.5],
    ['2µs', 0.002],
  ])('%s is %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms, 6);
  });

  it.each(['', '10', '-1s', '1d', '1 h', 'h'])('rejects %j', (text) => {
    expect(() => parseGoDuration(text)).toThrow(/cannot parse duration/);
  });
});

describe('parseAccessRange', () => {
  it.each([
    ['30m', 1_800_000],
    ['8h', 28_800_000],
    ['7d', 604_800_000],
    ['2w', 1_209_600_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseAccessRange(text)).toBe(ms);
  });

  it.each(['0h', '1.5h', '1 hour', '-1d', ''])('rejects %j', (text) => {
    expect(() => parseAccessRange(text)).toThrow(/cannot parse access range/);
  });
});
