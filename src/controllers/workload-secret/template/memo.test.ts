import { describe, expect, it } from 'vitest';
import { RenderMemo, renderDigest } from './memo.ts';

const ok = (value: string) => ({ ok: true as const, data: { K: value } });
const failed = { ok: false as const, failure: { key: 'K', what: 'time limit exceeded' } };

describe('RenderMemo', () => {
  it('answers only for the digest it holds, one entry per resource', () => {
    const memo = new RenderMemo(1_000);
    const digest = renderDigest([['K', '{{ A }}']], { A: 'x' });
    expect(renderDigest([['K', '{{ A }}']], { A: 'y' })).not.toBe(digest);
    memo.set('ns/a', digest, ok('x'));
    expect(memo.get('ns/a', digest)).toEqual(ok('x'));
    expect(memo.get('ns/a', 'other')).toBeUndefined();
    memo.set('ns/a', 'other', failed);
    expect(memo.get('ns/a', digest)).toBeUndefined();
    expect(memo.size).toBe(1);
    memo.forget('ns/a');
    expect(memo.size).toBe(0);
  });

  it('keeps rendered output within its bound (least recently used first out), failures always', () => {
    const memo = new RenderMemo(25);
    memo.set('ns/failing', 'd0', failed);
    memo.set('ns/a', 'd1', ok('a'.repeat(10)));
    memo.set('ns/b', 'd2', ok('b'.repeat(10)));
    expect(memo.get('ns/a', 'd1')).toBeDefined();
    memo.set('ns/c', 'd3', ok('c'.repeat(10)));
    expect(memo.get('ns/b', 'd2')).toBeUndefined();
    expect(memo.get('ns/a', 'd1')).toBeDefined();
    expect(memo.get('ns/failing', 'd0')).toEqual(failed);
    expect(memo.heldChars).toBe(22);
    memo.set('ns/huge', 'd4', ok('h'.repeat(100)));
    expect(memo.get('ns/huge', 'd4')).toBeUndefined();
  });
});
