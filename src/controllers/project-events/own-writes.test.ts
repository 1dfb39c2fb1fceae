import { describe, expect, it } from 'vitest';
import { OwnWrites } from './own-writes.ts';

const change = (secretKeys: string[], secretPath = '/a') => ({ environment: 'dev', secretPath, secretKeys });

describe('OwnWrites', () => {
  it('consumes each announced key once', () => {
    const own = new OwnWrites(1_000);
    own.expect('ns/a', 1, change(['K1', 'K2']));
    expect(own.consume('ns/a', 1, [change(['K1', 'K2'])])).toBe(true);
    expect(own.consume('ns/a', 1, [change(['K1'])])).toBe(false);
    expect(own.size).toBe(0);
  });

  it.each([
    ['another key of the folder', [change(['K1', 'OTHER'])], 1],
    ['the same key twice in one event', [change(['K1', 'K1'])], 1],
    ['another folder', [change(['K1'], '/b')], 1],
    ['a key-less change (import mutation)', [change([])], 1],
    ['a change on a reopened stream', [change(['K1'])], 2],
  ])('does not take %s for an echo', (_reason, changes, epoch) => {
    const own = new OwnWrites(1_000);
    own.expect('ns/a', 1, change(['K1', 'K2']));
    expect(own.consume('ns/a', epoch, changes)).toBe(false);
  });

  it('expires an echo that never came', () => {
    let now = 0;
    const own = new OwnWrites(1_000, () => now);
    own.expect('ns/a', 1, change(['K1']));
    now = 1_000;
    expect(own.consume('ns/a', 1, [change(['K1'])])).toBe(false);
    expect(own.size).toBe(0);
  });

  it('adds a second write of the same stream to what is still expected', () => {
    const own = new OwnWrites(1_000);
    own.expect('ns/a', 1, change(['K1']));
    own.expect('ns/a', 1, change(['K2']));
    expect(own.consume('ns/a', 1, [change(['K2'])])).toBe(true);
    expect(own.consume('ns/a', 1, [change(['K1'])])).toBe(true);
  });
});
