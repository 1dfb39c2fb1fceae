import { describe, expect, it } from 'vitest';
import { certificateAuthoritySpec } from '../../api/v1alpha1/index.ts';
import type { CertificateAuthority } from '../../client/index.ts';
import {
  caBundle,
  createRequest,
  describeUpdate,
  immutableMismatch,
  outputSecret,
  statusOf,
  updateRequest,
} from './mapping.ts';

const spec = (extra: Record<string, unknown> = {}) =>
  certificateAuthoritySpec.parse({
    connectionRef: { name: 'c' },
    projectRef: { name: 'p' },
    type: 'root',
    commonName: 'Example Root',
    ...extra,
  });

const ca = (extra: Partial<CertificateAuthority> = {}): CertificateAuthority => ({
  id: 'ca1',
  projectId: 'p1',
  status: 'active',
  type: 'root',
  commonName: 'Example Root',
  organization: '',
  ou: '',
  country: '',
  province: '',
  locality: '',
  keyAlgorithm: 'RSA_2048',
  maxPathLength: -1,
  requireTemplateForIssuance: false,
  ...extra,
});

describe('createRequest', () => {
  const now = new Date('2030-01-01T00:00:00Z');

  it('sends the subject, defaults and the project slug', () => {
    expect(createRequest(spec(), 'shop', now)).toEqual({
      projectSlug: 'shop',
      type: 'root',
      commonName: 'Example Root',
      organization: '',
      ou: '',
      country: '',
      province: '',
      locality: '',
      maxPathLength: -1,
      keyAlgorithm: 'RSA_2048',
      requireTemplateForIssuance: false,
    });
  });

  it('turns validity into notAfter from notBefore, or from now', () => {
    expect(createRequest(spec({ validity: '48h' }), 's', now).notAfter).toBe('2030-01-03T00:00:00.000Z');
    const from = spec({ validity: '1h', notBefore: '2031-05-01T10:00:00Z' });
    expect(createRequest(from, 's', now)).toMatchObject({
      notBefore: '2031-05-01T10:00:00Z',
      notAfter: '2031-05-01T11:00:00.000Z',
    });
    expect(createRequest(spec({ notAfter: '2040-01-01T00:00:00Z' }), 's', now).notAfter).toBe(
      '2040-01-01T00:00:00Z',
    );
  });
});

describe('updateRequest', () => {
  it('is empty when status and template requirement match', () => {
    expect(updateRequest(spec(), ca())).toEqual({});
    expect(describeUpdate(updateRequest(spec(), ca()))).toBeUndefined();
  });

  it('asks for the differing fields, named after the spec', () => {
    const request = updateRequest(spec({ enabled: false, requireTemplateForIssuance: true }), ca());
    expect(request).toEqual({ status: 'disabled', requireTemplateForIssuance: true });
    expect(describeUpdate(request)).toBe('requireTemplateForIssuance, enabled');
  });

  it('treats a missing template flag as false and never changes a pending CA status', () => {
    expect(updateRequest(spec(), ca({ requireTemplateForIssuance: null }))).toEqual({});
    expect(updateRequest(spec(), ca({ status: 'pending-certificate' }))).toEqual({});
  });
});

describe('immutableMismatch', () => {
  it('lists immutable fields that differ, ignoring an unset friendlyName', () => {
    expect(immutableMismatch(spec(), ca({ friendlyName: 'whatever' }))).toEqual([]);
    expect(immutableMismatch(spec({ friendlyName: 'a' }), ca({ friendlyName: 'b' }))).toEqual([
      'friendlyName',
    ]);
    const other = ca({ commonName: 'Other', keyAlgorithm: 'EC_prime256v1', maxPathLength: null, type: 'x' });
    expect(immutableMismatch(spec({ maxPathLength: 2 }), other)).toEqual([
      'type',
      'commonName',
      'keyAlgorithm',
      'maxPathLength',
    ]);
  });
});

describe('status and output', () => {
  it('maps the certificate fields and omits empty ones', () => {
    expect(statusOf(ca({ dn: 'CN=Example Root', serialNumber: '01', activeCaCertId: 'c1' }))).toEqual({
      state: 'active',
      dn: 'CN=Example Root',
      serialNumber: '01',
      activeCaCertId: 'c1',
    });
  });

  it('joins certificate and chain without repeating the certificate', () => {
    const leaf = '-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----';
    const parent = '-----BEGIN CERTIFICATE-----\nB\n-----END CERTIFICATE-----';
    expect(caBundle({ certificate: `${leaf}\n`, certificateChain: '', serialNumber: '1' })).toBe(`${leaf}\n`);
    expect(caBundle({ certificate: leaf, certificateChain: leaf, serialNumber: '1' })).toBe(`${leaf}\n`);
    expect(caBundle({ certificate: leaf, certificateChain: parent, serialNumber: '1' })).toBe(
      `${leaf}\n${parent}\n`,
    );
  });

  it('writes ca.crt only with an output Secret name and a certificate', () => {
    const cert = { certificate: 'PEM', certificateChain: '', serialNumber: '1' };
    expect(outputSecret(spec(), cert)).toBeUndefined();
    expect(outputSecret(spec({ outputSecretName: 'ca' }), undefined)).toBeUndefined();
    expect(outputSecret(spec({ outputSecretName: 'ca' }), cert)).toEqual([
      { name: 'ca', data: { 'ca.crt': 'PEM\n' } },
    ]);
  });
});
