import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError } from './errors.ts';
import {
  AccessTokenAttachFields,
  AccessTokenNumUsesLimitSchema,
  AccessTokenTtlSchema,
  AccessTokenUpdateFields,
  assertUpdatedTtlWithinMax,
  FolderNameSchema,
  GenericResourceNameSchema,
  INVALID_IP_MESSAGE,
  ipAllowed,
  IP_PLAN_RESTRICTION_MESSAGE,
  parseTrustedIp,
  parseTrustedIps,
  PrivilegeTypeSchema,
  ProjectPatchSlugSchema,
  SecretNameSchema,
  slugSchema,
  TemporaryAccessStartTimeSchema,
  TemporaryModeSchema,
  TemporaryRangeSchema,
  ttlWithinMax,
  updatedTtlWithinMax,
} from './validation.ts';

function messages(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => i.message);
}

describe('slugSchema', () => {
  const slug = slugSchema();
  it.each(['a', 'dev', 'my-project-2', '123', 'a-b-c', '  padded  '])('accepts %j', (value) => {
    expect(slug.safeParse(value).success).toBe(true);
  });

  it('trims', () => {
    expect(slug.parse('  dev ')).toBe('dev');
  });

  it.each([
    ['', 'Slug field must be at least 1 lowercase character'],
    ['Dev', 'Slug field can only contain lowercase letters, numbers, and hyphens'],
    ['a_b', 'Slug field can only contain lowercase letters, numbers, and hyphens'],
    ['a--b', 'Slug field can only contain lowercase letters, numbers, and hyphens'],
    ['-a', 'Slug field can only contain lowercase letters, numbers, and hyphens'],
    ['a-', 'Slug field can only contain lowercase letters, numbers, and hyphens'],
    ['a b', 'Slug field can only contain lowercase letters, numbers, and hyphens'],
    ['ümlaut', 'Slug field can only contain lowercase letters, numbers, and hyphens'],
    ['x'.repeat(65), 'Slug field must be at most 64 lowercase characters'],
  ])('rejects %j with %j', (value, message) => {
    expect(messages(slug, value)).toContain(message);
  });

  it('uses min, max and field in messages', () => {
    const s = slugSchema({ min: 5, max: 36, field: 'Name' });
    expect(messages(s, 'abcd')).toEqual(['Name field must be at least 5 lowercase characters']);
    expect(messages(s, 'a'.repeat(37))).toEqual(['Name field must be at most 36 lowercase characters']);
    expect(messages(slugSchema({ max: 1 }), 'ab')).toEqual([
      'Slug field must be at most 1 lowercase character',
    ]);
  });
});

describe('names', () => {
  it.each([
    ['My Identity_1-x', true],
    ['  spaced  ', true],
    ['', false],
    ['bad!', false],
    ['x'.repeat(65), false],
    ['x'.repeat(64), true],
  ])('GenericResourceNameSchema %j -> %s', (value, ok) => {
    expect(GenericResourceNameSchema.safeParse(value).success).toBe(ok);
  });

  it.each([
    ['API_KEY', true],
    ['ключ', true],
    ['emoji🔑', true],
    ['with space', true],
    ['a:b', false],
    ['a/b', false],
    ['   ', false],
    ['', false],
  ])('SecretNameSchema %j -> %s', (value, ok) => {
    expect(SecretNameSchema.safeParse(value).success).toBe(ok);
  });

  it('SecretNameSchema trims and explains', () => {
    expect(SecretNameSchema.parse(' KEY ')).toBe('KEY');
    expect(messages(SecretNameSchema, 'a:b')).toEqual(['Secret name cannot contain colon.']);
    expect(messages(SecretNameSchema, 'a/b')).toEqual(['Secret name cannot contain forward slash.']);
  });

  it.each([
    ['app', true],
    ['App_2-x', true],
    ['a.b', false],
    ['a b', false],
    ['', false],
  ])('FolderNameSchema %j -> %s', (value, ok) => {
    expect(FolderNameSchema.safeParse(value).success).toBe(ok);
  });

  it.each([
    ['my_project-1', true],
    ['abc', true],
    ['_abc', false],
    ['abc-', false],
    ['a__b', false],
    ['ABC', false],
    ['x'.repeat(65), false],
  ])('ProjectPatchSlugSchema %j -> %s', (value, ok) => {
    expect(ProjectPatchSlugSchema.safeParse(value).success).toBe(ok);
  });
});

describe('access-token fields', () => {
  it.each([
    [0, true],
    [315_360_000, true],
    [315_360_001, false],
    [-1, false],
    [1.5, false],
    ['60', false],
  ])('TTL %j -> %s', (value, ok) => {
    expect(AccessTokenTtlSchema.safeParse(value).success).toBe(ok);
  });

  it.each([
    [0, true],
    [10, true],
    [-1, false],
  ])('num uses %j -> %s', (value, ok) => {
    expect(AccessTokenNumUsesLimitSchema.safeParse(value).success).toBe(ok);
  });

  it('fills attach defaults', () => {
    const attach = z.object(AccessTokenAttachFields);
    expect(attach.parse({})).toEqual({
      accessTokenTrustedIps: [{ ipAddress: '0.0.0.0/0' }, { ipAddress: '::/0' }],
      accessTokenTTL: 2_592_000,
      accessTokenMaxTTL: 2_592_000,
      accessTokenNumUsesLimit: 0,
    });
  });

  it('leaves update fields unset', () => {
    expect(z.object(AccessTokenUpdateFields).parse({})).toEqual({});
    expect(z.object(AccessTokenUpdateFields).safeParse({ accessTokenTrustedIps: [] }).success).toBe(false);
  });

  it.each([
    [{ accessTokenTTL: 10, accessTokenMaxTTL: 10 }, true],
    [{ accessTokenTTL: 11, accessTokenMaxTTL: 10 }, false],
    [{ accessTokenTTL: 0, accessTokenMaxTTL: 0 }, true],
  ])('attach refine %j -> %s', (value, ok) => {
    expect(ttlWithinMax(value)).toBe(ok);
  });

  it.each([
    [{ accessTokenTTL: 11, accessTokenMaxTTL: 10 }, false],
    [{ accessTokenTTL: 11 }, true],
    [{ accessTokenTTL: 11, accessTokenMaxTTL: 0 }, true],
    [{ accessTokenTTL: 5, accessTokenMaxTTL: 10 }, true],
  ])('update refine %j -> %s', (value, ok) => {
    expect(updatedTtlWithinMax(value)).toBe(ok);
  });

  it.each([
    [{ accessTokenTTL: 100 }, { accessTokenMaxTTL: 50 }, true],
    [{ accessTokenTTL: 40 }, { accessTokenMaxTTL: 50 }, false],
    [{ accessTokenMaxTTL: 10 }, { accessTokenMaxTTL: 50 }, true],
    [{ accessTokenTTL: 100 }, { accessTokenMaxTTL: 0 }, false],
    [{}, { accessTokenMaxTTL: 50 }, false],
  ])('update cross-check %j over stored %j throws: %s', (update, stored, throws) => {
    const run = () => assertUpdatedTtlWithinMax(update, stored);
    if (throws) expect(run).toThrow(DomainError);
    else expect(run).not.toThrow();
  });
});

describe('trusted IPs', () => {
  it.each([
    ['0.0.0.0/0', { ipAddress: '0.0.0.0', type: 'ipv4', prefix: 0 }],
    ['::/0', { ipAddress: '::', type: 'ipv6', prefix: 0 }],
    ['10.1.2.3', { ipAddress: '10.1.2.3', type: 'ipv4' }],
    [' 10.0.0.0/8 ', { ipAddress: '10.0.0.0', type: 'ipv4', prefix: 8 }],
    ['2001:db8::/32', { ipAddress: '2001:db8::', type: 'ipv6', prefix: 32 }],
    ['::1', { ipAddress: '::1', type: 'ipv6' }],
    ['1.2.3.4/32', { ipAddress: '1.2.3.4', type: 'ipv4', prefix: 32 }],
    ['::/128', { ipAddress: '::', type: 'ipv6', prefix: 128 }],
  ])('parses %j', (text, expected) => {
    expect(parseTrustedIp(text)).toEqual(expected);
  });

  it.each([
    '',
    'localhost',
    '1.2.3',
    '1.2.3.4/33',
    '::/129',
    '1.2.3.4/',
    '/8',
    '1.2.3.4/x',
    '1.2.3.4/-1',
    '300.1.1.1',
  ])('rejects %j', (text) => {
    expect(parseTrustedIp(text)).toBeUndefined();
  });

  it('parses a list into the stored form and rejects an invalid entry with 400', () => {
    expect(parseTrustedIps([{ ipAddress: '0.0.0.0/0' }, { ipAddress: '::/0' }])).toEqual([
      { ipAddress: '0.0.0.0', type: 'ipv4', prefix: 0 },
      { ipAddress: '::', type: 'ipv6', prefix: 0 },
    ]);
    expect(() => parseTrustedIps([{ ipAddress: 'nope' }])).toThrow(
      expect.objectContaining({ status: 400, message: INVALID_IP_MESSAGE }),
    );
  });

  it('enforces the plan restriction only when asked', () => {
    const input = [{ ipAddress: '10.0.0.0/8' }];
    expect(parseTrustedIps(input)).toHaveLength(1);
    expect(() => parseTrustedIps(input, { ipAllowListing: false })).toThrow(
      expect.objectContaining({ status: 400, message: IP_PLAN_RESTRICTION_MESSAGE }),
    );
    expect(parseTrustedIps([{ ipAddress: '0.0.0.0/0' }], { ipAllowListing: false })).toHaveLength(1);
  });

  const any = parseTrustedIps([{ ipAddress: '0.0.0.0/0' }, { ipAddress: '::/0' }]);
  const narrow = parseTrustedIps([
    { ipAddress: '10.0.0.0/8' },
    { ipAddress: '192.168.1.7' },
    { ipAddress: 'fd00::/8' },
  ]);
  it.each([
    ['127.0.0.1', any, true],
    ['::1', any, true],
    ['::ffff:127.0.0.1', any, true],
    ['10.20.30.40', narrow, true],
    ['::ffff:10.20.30.40', narrow, true],
    ['11.0.0.1', narrow, false],
    ['192.168.1.7', narrow, true],
    ['192.168.1.8', narrow, false],
    ['fd12::1', narrow, true],
    ['fe80::1', narrow, false],
    ['garbage', any, false],
    ['10.0.0.1', [], false],
  ])('ipAllowed(%j) -> %s', (client, trusted, ok) => {
    expect(ipAllowed(client, trusted)).toBe(ok);
  });

  it('does not let an IPv6 any-range admit IPv4 clients or vice versa', () => {
    expect(ipAllowed('10.0.0.1', parseTrustedIps([{ ipAddress: '::/0' }]))).toBe(false);
    expect(ipAllowed('::1', parseTrustedIps([{ ipAddress: '0.0.0.0/0' }]))).toBe(false);
  });
});

describe('temporary access', () => {
  it('accepts only "relative" as mode', () => {
    expect(TemporaryModeSchema.safeParse('relative').success).toBe(true);
    expect(TemporaryModeSchema.safeParse('absolute').success).toBe(false);
  });

  it.each([
    ['1h', []],
    ['2 days', []],
    ['0', ['Temporary range must be a positive number']],
    ['-1h', ['Temporary range must be a positive number']],
    ['whenever', ['Temporary range must be a positive number']],
  ])('range %j', (value, expected) => {
    expect(messages(TemporaryRangeSchema, value)).toEqual(expected);
  });

  it.each([
    ['2030-01-01T00:00:00Z', true],
    ['2030-01-01T00:00:00.123Z', true],
    ['2030-01-01', false],
    ['2030-01-01T00:00:00+02:00', false],
  ])('start time %j -> %s', (value, ok) => {
    expect(TemporaryAccessStartTimeSchema.safeParse(value).success).toBe(ok);
  });

  it('discriminates the privilege type on isTemporary', () => {
    expect(PrivilegeTypeSchema.parse({ isTemporary: false })).toEqual({ isTemporary: false });
    const temporary = {
      isTemporary: true,
      temporaryMode: 'relative',
      temporaryRange: '1h',
      temporaryAccessStartTime: '2030-01-01T00:00:00Z',
    };
    expect(PrivilegeTypeSchema.parse(temporary)).toEqual(temporary);
    expect(PrivilegeTypeSchema.safeParse({ isTemporary: true }).success).toBe(false);
  });
});
