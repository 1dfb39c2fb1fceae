import { describe, expect, it } from 'vitest';
import { filters } from './filters.ts';

const cert = (n: number) => `-----BEGIN CERTIFICATE-----\nMIIC${n}\n-----END CERTIFICATE-----`;
const key = '-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----';

describe('PEM filters', () => {
  const bundle = `${key}\n${cert(1)}\nnoise\n${cert(2)}\n`;

  it('pemCertificates keeps every certificate in order; pemPrivateKey the first private key', () => {
    expect(filters.pemCertificates?.(bundle)).toBe(`${cert(1)}\n${cert(2)}\n`);
    expect(filters.pemPrivateKey?.(bundle)).toBe(`${key}\n`);
  });

  it('refuses input without such a block, without echoing it', () => {
    expect(() => filters.pemCertificates?.('secret-text')).toThrow(/holds no PEM certificate/);
    expect(() => filters.pemPrivateKey?.(cert(1))).toThrow(/holds no PEM private key/);
    expect(() => filters.pemPrivateKey?.('secret-text')).not.toThrow(/secret-text/);
  });
});
