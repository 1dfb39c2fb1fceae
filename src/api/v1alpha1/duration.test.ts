import { describe, expect, it } from 'vitest';
import { parseAccessRange } from './duration.ts';

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
