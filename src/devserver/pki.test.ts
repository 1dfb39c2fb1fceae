/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment -- the tests read fields of arbitrary JSON answers */
// Certificate authorities over HTTP: real key pairs and certificates, PEM and DER answers.
import { X509Certificate } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdentityWithToken, startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let orgId: string;
let projectSlug: string;

beforeEach(async () => {
  t = await startTestServer();
  ({ orgId } = await t.bootstrap());
  projectSlug = (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'PKI' } })).body.project
    .slug;
});

afterEach(async () => {
  await t.close();
});

const subject = {
  commonName: 'Example Root CA',
  organization: 'Example',
  ou: '',
  country: 'US',
  province: '',
  locality: '',
};

describe('certificate authorities', () => {
  it('creates a root CA whose fields come from a real self-signed certificate', async () => {
    const created = await t.call('POST', '/api/v1/pki/ca', {
      body: { projectSlug, type: 'root', keyAlgorithm: 'EC_prime256v1', ...subject },
    });
    expect(created.status).toBe(200);
    const ca = created.body.ca;
    expect(ca).toMatchObject({
      type: 'root',
      status: 'active',
      keyAlgorithm: 'EC_prime256v1',
      commonName: 'Example Root CA',
    });
    expect(JSON.stringify(created.body)).not.toContain('PRIVATE KEY');
    const cert = await t.call('GET', `/api/v1/pki/ca/${ca.id}/certificate`);
    const x509 = new X509Certificate(cert.body.certificate);
    expect(x509.ca).toBe(true);
    expect(x509.subject).toContain('CN=Example Root CA');
    expect(x509.serialNumber.toLowerCase()).toBe(String(ca.serialNumber).toLowerCase());
    expect(x509.checkIssued(x509)).toBe(true);
    expect(new Date(x509.validTo).toISOString()).toBe(ca.notAfter);
    const list = await t.call('GET', `/api/v1/pki/ca/${ca.id}/ca-certificates`);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ serialNumber: ca.serialNumber, version: 1 });
    const der = await fetch(`${t.server.url}/api/v1/pki/ca/${ca.id}/certificates/${ca.activeCaCertId}/der`);
    expect(der.headers.get('content-type')).toBe('application/pkix-cert');
    expect(new X509Certificate(Buffer.from(await der.arrayBuffer())).serialNumber).toBe(x509.serialNumber);
  });

  it('updates status, deletes, and answers 404 afterwards', async () => {
    const created = await t.call('POST', '/api/v1/pki/ca', {
      body: { projectSlug, type: 'root', ...subject },
    });
    const id = created.body.ca.id as string;
    expect((await t.call('GET', `/api/v1/pki/ca/${id}`)).body.ca.keyAlgorithm).toBe('RSA_2048');
    const patched = await t.call('PATCH', `/api/v1/pki/ca/${id}`, { body: { status: 'disabled' } });
    expect(patched.body.ca.status).toBe('disabled');
    expect((await t.call('DELETE', `/api/v1/pki/ca/${id}`)).status).toBe(200);
    expect((await t.call('GET', `/api/v1/pki/ca/${id}`)).status).toBe(404);
  });

  it('validates the subject and refuses callers without CA permission', async () => {
    const empty = { commonName: '', organization: '', ou: '', country: '', province: '', locality: '' };
    expect(
      (await t.call('POST', '/api/v1/pki/ca', { body: { projectSlug, type: 'root', ...empty } })).status,
    ).toBe(422);
    const outsider = await createIdentityWithToken(t, orgId, { role: 'member' });
    const denied = await t.call('POST', '/api/v1/pki/ca', {
      token: outsider.token,
      body: { projectSlug, type: 'root', ...subject },
    });
    expect(denied.status).toBe(403);
  });
});
