import { describe, expect, it } from 'vitest';
import { isPositiveDuration, parseDuration, temporaryEndTime } from './duration.ts';

describe('parseDuration', () => {
  it.each([
    ['100', 100],
    ['1.5h', 5_400_000],
    ['.5s', 500],
    ['30m', 1_800_000],
    ['1h', 3_600_000],
    ['7d', 604_800_000],
    ['2 days', 172_800_000],
    ['1 week', 604_800_000],
    ['3 mins', 180_000],
    ['10 Seconds', 10_000],
    ['1y', 31_557_600_000],
    ['2 yrs', 63_115_200_000],
    ['250ms', 250],
    ['5 msecs', 5],
    ['1H', 3_600_000],
    ['-1h', -3_600_000],
    ['0', 0],
  ])('%j is %d ms', (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });

  it.each(['', 'abc', '1 fortnight', 'h', '1h30m', ' 1h', '1h ', '1..5h', 'x'.repeat(101), '1e3'])(
    '%j is not a duration',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );
});

describe('isPositiveDuration', () => {
  it.each([
    ['1h', true],
    ['1', true],
    ['0', false],
    ['0h', false],
    ['-5m', false],
    ['soon', false],
  ])('%j -> %s', (text, expected) => {
    expect(isPositiveDuration(text)).toBe(expected);
  });
});

describe('temporaryEndTime', () => {
  it('adds the range to the start', () => {
    expect(temporaryEndTime('2030-01-01T00:00:00.000Z', '1.5h')).toBe('2030-01-01T01:30:00.000Z');
    expect(temporaryEndTime('2030-01-01T00:00:00Z', '7d')).toBe('2030-01-08T00:00:00.000Z');
  });

  it.each([
    ['not a date', '1h'],
    ['2030-01-01T00:00:00Z', 'never'],
    ['2030-01-01T00:00:00Z', '0s'],
  ])('rejects start %j with range %j', (start, range) => {
    expect(() => temporaryEndTime(start, range)).toThrow(/cannot compute temporary end time/);
  });
});
