import { describe, expect, it } from 'vitest';
import { certificateAuthoritySpec } from './certificate-authority.ts';
import { unstorableEnd } from './time-bounds.ts';

const ca = (extra: Record<string, unknown>) =>
  certificateAuthoritySpec.safeParse({
    connectionRef: { name: 'c' },
    projectRef: { name: 'p' },
    type: 'root',
    commonName: 'Example Root',
    ...extra,
  });

describe('unstorableEnd', () => {
  const last = Date.parse('9999-12-31T23:59:59Z');
  it.each([
    { reason: 'ends at the last storable second', start: last - 1000, length: 1000, storable: true },
    { reason: 'ends one second later', start: last - 1000, length: 2000, storable: false },
    { reason: 'an unparsable start is left to the format', start: Number.NaN, length: 1, storable: true },
  ])('$reason', ({ start, length, storable }) => {
    expect(unstorableEnd(start, length, 'it') === undefined).toBe(storable);
  });
});

describe('CertificateAuthority validity from notBefore', () => {
  it('refuses a validity that ends after 9999, naming validity', () => {
    const result = ca({ notBefore: '9990-01-01T00:00:00Z', validity: '876000h' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ['validity'] });
    expect(result.error?.issues[0]?.message).toContain('would end after 9999-12-31T23:59:59Z');
  });

  it('accepts the same validity from today', () => {
    expect(ca({ validity: '876000h' }).success).toBe(true);
  });
});
