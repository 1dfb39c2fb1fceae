import { createPrivateKey, X509Certificate } from 'node:crypto';
import * as x509 from '../../x509.ts';
import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.ts';
import { certificateDer, createCa, isCertificatePem, renewRootCa, type CaKeyAlgorithm } from './pki.ts';

const now = new Date('2030-01-01T00:00:00.500Z');
const subject = {
  commonName: 'Coffer Root',
  organization: 'Coffer',
  ou: '',
  country: 'DE',
  province: '',
  locality: 'Berlin',
};

describe('createCa root', () => {
  it.each([
    ['RSA_2048', 'rsa', { modulusLength: 2048 }],
    ['RSA_3072', 'rsa', { modulusLength: 3072 }],
    ['RSA_4096', 'rsa', { modulusLength: 4096 }],
    ['EC_prime256v1', 'ec', { namedCurve: 'prime256v1' }],
    ['EC_secp384r1', 'ec', { namedCurve: 'secp384r1' }],
    ['EC_secp521r1', 'ec', { namedCurve: 'secp521r1' }],
  ] as const)(
    '%s yields a self-signed CA certificate with a matching key',
    async (keyAlgorithm, keyType, details) => {
      const ca = await createCa({ type: 'root', keyAlgorithm: keyAlgorithm, ...subject }, now);
      expect(ca.status).toBe('active');
      const cert = new X509Certificate(ca.certificate ?? '');
      expect(cert.ca).toBe(true);
      expect(cert.publicKey.asymmetricKeyType).toBe(keyType);
      expect(cert.publicKey.asymmetricKeyDetails).toMatchObject(details);
      expect(cert.verify(cert.publicKey)).toBe(true);
      expect(cert.checkPrivateKey(createPrivateKey(ca.privateKeyPem))).toBe(true);
      expect(cert.serialNumber.toLowerCase()).toBe(ca.serialNumber?.toLowerCase());
      expect(ca.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    },
    60_000,
  );

  it('reads dn, serial and validity back from the certificate', async () => {
    const ca = await createCa({ type: 'root', keyAlgorithm: 'EC_prime256v1', ...subject }, now);
    expect(ca.dn).toBe('C=DE, L=Berlin, O=Coffer, CN=Coffer Root');
    expect(ca.serialNumber).toMatch(/^[0-9a-f]{32}$/);
    expect(ca.notBefore).toBe('2030-01-01T00:00:00.000Z');
    expect(ca.notAfter).toBe('2040-01-01T00:00:00.000Z');
    expect(ca.certificateChain).toBe('');
    expect(ca.csr).toBeNull();
    expect(ca.keyAlgorithm).toBe('EC_prime256v1');
    expect(JSON.parse(JSON.stringify(ca))).toEqual(ca);
  });

  it('defaults to RSA_2048 and honours explicit dates', async () => {
    const ca = await createCa({
      type: 'root',
      commonName: 'x',
      notBefore: '2031-05-01T00:00:00Z',
      notAfter: '2032-05-01',
    });
    expect(ca.keyAlgorithm).toBe('RSA_2048');
    expect([ca.notBefore, ca.notAfter]).toEqual(['2031-05-01T00:00:00.000Z', '2032-05-01T00:00:00.000Z']);
  });

  it.each([
    [-1, undefined],
    [0, 0],
    [3, 3],
  ])('maxPathLength %d gives pathLen %s', async (maxPathLength, pathLength) => {
    const ca = await createCa(
      { type: 'root', keyAlgorithm: 'EC_prime256v1', commonName: 'x', maxPathLength },
      now,
    );
    const cert = new x509.X509Certificate(ca.certificate ?? '');
    const constraints = cert.getExtension(x509.BasicConstraintsExtension);
    expect(constraints?.ca).toBe(true);
    expect(constraints?.critical).toBe(true);
    expect(constraints?.pathLength).toBe(pathLength);
    const usage = cert.getExtension(x509.KeyUsagesExtension);
    expect((usage?.usages ?? 0) & x509.KeyUsageFlags.keyCertSign).toBeTruthy();
  });

  it.each([
    [
      { commonName: '', organization: ' ' },
      'At least one of commonName, organization, ou, country, province or locality must be set',
    ],
    [{ commonName: 'x', notBefore: 'yesterday-ish' }, 'Invalid notBefore date'],
    [{ commonName: 'x', notAfter: 'soon' }, 'Invalid notAfter date'],
    [
      { commonName: 'x', notBefore: '2030-01-02', notAfter: '2030-01-01' },
      'notAfter must be after notBefore',
    ],
    [{ commonName: 'x', maxPathLength: -2 }, 'maxPathLength must be -1 or more'],
    [{ commonName: 'x', keyAlgorithm: 'DSA_1024' as CaKeyAlgorithm }, 'Unsupported key algorithm DSA_1024'],
  ])('rejects %j with 400', async (input, message) => {
    const error = await createCa({ type: 'root', ...input }, now).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ status: 400, message });
  });
});

describe('createCa intermediate', () => {
  it('creates a key and a CSR and waits for a certificate', async () => {
    const ca = await createCa(
      { type: 'intermediate', keyAlgorithm: 'EC_secp384r1', commonName: 'Issuing', organization: 'Coffer' },
      now,
    );
    expect(ca).toMatchObject({
      type: 'intermediate',
      status: 'pending-certificate',
      certificate: null,
      serialNumber: null,
      notBefore: null,
      notAfter: null,
      dn: 'O=Coffer, CN=Issuing',
    });
    const csr = new x509.Pkcs10CertificateRequest(ca.csr ?? '');
    expect(csr.subject).toBe('O=Coffer, CN=Issuing');
    expect(await csr.verify()).toBe(true);
  });
});

describe('renewRootCa', () => {
  it('re-issues with the same key and subject and a new serial', async () => {
    const ca = await createCa({ type: 'root', keyAlgorithm: 'EC_prime256v1', ...subject }, now);
    const renewed = await renewRootCa(ca, '2045-01-01T00:00:00Z', new Date('2031-01-01T00:00:00Z'));
    expect(renewed.dn).toBe(ca.dn);
    expect(renewed.serialNumber).not.toBe(ca.serialNumber);
    expect([renewed.notBefore, renewed.notAfter]).toEqual([
      '2031-01-01T00:00:00.000Z',
      '2045-01-01T00:00:00.000Z',
    ]);
    const cert = new X509Certificate(renewed.certificate ?? '');
    expect(cert.checkPrivateKey(createPrivateKey(ca.privateKeyPem))).toBe(true);
    expect(cert.verify(cert.publicKey)).toBe(true);
  });

  it('refuses intermediates', async () => {
    const ca = await createCa({ type: 'intermediate', keyAlgorithm: 'EC_prime256v1', commonName: 'x' }, now);
    await expect(renewRootCa(ca, '2045-01-01')).rejects.toMatchObject({ status: 400 });
  });
});

describe('certificate helpers', () => {
  it('converts to DER and recognises certificates', async () => {
    const ca = await createCa({ type: 'root', keyAlgorithm: 'EC_prime256v1', commonName: 'x' }, now);
    const der = certificateDer(ca.certificate ?? '');
    expect(new X509Certificate(der).serialNumber.toLowerCase()).toBe(ca.serialNumber);
    expect(isCertificatePem(ca.certificate ?? '')).toBe(true);
    expect(isCertificatePem('-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----')).toBe(false);
    expect(isCertificatePem('')).toBe(false);
  });
});
