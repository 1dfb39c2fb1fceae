import { describe, expect, it } from 'vitest';
import type { TerminalError } from '../../runtime/errors.ts';
import {
  checkContent,
  checkSecretType,
  contentBytes,
  contentHash,
  invalidKeyReason,
  MAX_CONTENT_BYTES,
} from './content.ts';

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

describe('the API server’s own rules', () => {
  it('refuses keys starting with ".." (IsConfigMapKey)', () => {
    expect(invalidKeyReason('..data')).toBe('it may not start with ".."');
    expect(invalidKeyReason('.env')).toBeUndefined();
    expect(failure({ '..data': 'x' }).reason).toBe('InvalidKey');
  });

  it('refuses a value that is not well-formed Unicode, naming only the key', () => {
    const error = failure({ GOOD: 'ok', LONE: 'secret-value-2\ud800' });
    expect(error.reason).toBe('InvalidValue');
    expect(error.message).toContain('"LONE"');
    expect(error.message).not.toContain('secret-value-2');
    checkContent({ emoji: '🔑 e\u0301' });
  });

  it.each([
    ['Opaque', {}, undefined],
    ['kubernetes.io/tls', { 'tls.crt': '', 'tls.key': '' }, undefined],
    ['kubernetes.io/tls', { 'tls.crt': 'c' }, 'InvalidSpec: tls.key'],
    ['kubernetes.io/tls', {}, 'InvalidSpec: tls.crt, tls.key'],
    ['kubernetes.io/dockerconfigjson', { '.dockerconfigjson': '{"auths":{}}' }, undefined],
    [
      'kubernetes.io/dockerconfigjson',
      { '.dockerconfigjson': 'secret-value-3' },
      'InvalidValue: .dockerconfigjson',
    ],
    ['kubernetes.io/dockerconfigjson', { '.dockerconfigjson': '[1]' }, 'InvalidValue: .dockerconfigjson'],
    ['kubernetes.io/dockerconfigjson', {}, 'InvalidSpec: .dockerconfigjson'],
    ['kubernetes.io/dockercfg', { '.dockercfg': '{}' }, undefined],
    ['kubernetes.io/dockercfg', { other: '{}' }, 'InvalidSpec: .dockercfg'],
    ['kubernetes.io/basic-auth', { password: '' }, undefined],
    ['kubernetes.io/basic-auth', { user: 'x' }, 'InvalidSpec: username and password'],
    ['kubernetes.io/ssh-auth', { 'ssh-privatekey': 'k' }, undefined],
    ['kubernetes.io/ssh-auth', { 'ssh-privatekey': '' }, 'InvalidSpec: ssh-privatekey'],
    [
      'kubernetes.io/service-account-token',
      { token: 'x' },
      'InvalidSpec: kubernetes.io/service-account-token',
    ],
    ['example.com/custom', {}, 'InvalidSpec: example.com/custom'],
  ] as const)('a Secret of type %s with %j: %s', (type, data, expected) => {
    let error: TerminalError | undefined;
    try {
      checkSecretType(type, data);
    } catch (thrown) {
      error = thrown as TerminalError;
    }
    if (expected === undefined) return expect(error).toBeUndefined();
    const [reason, text] = expected.split(': ') as [string, string];
    expect(error?.reason).toBe(reason);
    expect(error?.message).toContain(text);
    expect(error?.message).not.toContain('secret-value-3');
  });
});
