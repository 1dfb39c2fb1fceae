import { describe, expect, it } from 'vitest';
import type { TerminalError } from '../../runtime/errors.ts';
import { checkContent, contentBytes, contentHash, invalidKeyReason, MAX_CONTENT_BYTES } from './content.ts';

function failure(data: Record<string, string>): TerminalError {
  try {
    checkContent(data);
  } catch (error) {
    return error as TerminalError;
  }
  throw new Error('expected a failure');
}

describe('content checks', () => {
  it('accepts Secret keys and names an invalid one in an InvalidKey error', () => {
    expect(invalidKeyReason('app.yaml')).toBeUndefined();
    expect(invalidKeyReason('DB-user_1')).toBeUndefined();
    expect(invalidKeyReason('a'.repeat(253))).toBeUndefined();
    expect(invalidKeyReason('a'.repeat(254))).toMatch(/254 characters/);
    expect(invalidKeyReason('..')).toBeDefined();
    expect(invalidKeyReason('has space')).toBeDefined();
    const error = failure({ GOOD: 'x', 'bad/key': 'secret-value-1' });
    expect(error.reason).toBe('InvalidKey');
    expect(error.message).toContain('"bad/key"');
    expect(error.message).not.toContain('secret-value-1');
  });

  it('refuses content over 1 MiB with its size (values counted in UTF-8 bytes)', () => {
    expect(contentBytes({ a: 'é', b: 'xy' })).toBe(4);
    checkContent({ a: 'x'.repeat(MAX_CONTENT_BYTES) });
    const error = failure({ a: 'x'.repeat(MAX_CONTENT_BYTES), b: 'y' });
    expect(error.reason).toBe('TooLarge');
    expect(error.message).toContain(`${MAX_CONTENT_BYTES + 1} bytes`);
  });

  it('hashes content independent of key order, keyed with the uid, 16 hex digits', () => {
    const a = contentHash({ A: '1', B: '2' }, 'uid-1');
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(contentHash({ B: '2', A: '1' }, 'uid-1')).toBe(a);
    expect(contentHash({ A: '1', B: '2' }, 'uid-2')).not.toBe(a);
    expect(contentHash({ A: '1', B: '3' }, 'uid-1')).not.toBe(a);
  });
});
