// CertificateAuthority against the real control plane and a devserver, what is particular to it:
// create (the output Secret holds a parseable X.509 CA certificate) and read back, update the
// mutable fields, an immutable field refused, a CA that does not match the spec, an intermediate
// CA waiting for its certificate, invalid input refused. What every managed kind shares (drift,
// adoption, ObserveOnly, deletion policies, a missing connection) is conformance.test.ts.
import { randomBytes } from 'node:crypto';
import * as x509 from '../../src/x509.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateAuthorityController } from '../../src/controllers/certificate-authority/index.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../src/runtime/object-meta.ts';
import { statusCodeOf, waitFor } from '../support/kube.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
const suffix = randomBytes(3).toString('hex');
const project = 'shop';
const projectSlug = `ca-shop-${suffix}`;
let projectId = '';

beforeAll(async () => {
  h = await startOperatorHarness({
    operator: { kinds: [projectController, certificateAuthorityController] },
  });
  await h.create('Project', project, {
    connectionRef: { name: HARNESS_CONNECTION },
    name: 'Shop',
    slug: projectSlug,
    environments: [{ name: 'Production', slug: 'prod' }],
  });
  projectId = (await h.waitForReady('Project', project)).status?.id ?? '';
});

afterAll(async () => {
  for (const ca of created) await h?.delete('CertificateAuthority', ca);
  for (const ca of created) await h?.waitForDeletion('CertificateAuthority', ca);
  await h?.delete('Project', project);
  await h?.stop();
});

const created: string[] = [];
async function createCa(name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) {
  created.push(name);
  return h.create('CertificateAuthority', name, spec, annotations ? { annotations } : {});
}

const spec = (commonName: string, extra: Record<string, unknown> = {}) => ({
  connectionRef: { name: HARNESS_CONNECTION },
  projectRef: { name: project },
  type: 'root',
  commonName,
  organization: 'Shop',
  country: 'DE',
  validity: '8760h',
  keyAlgorithm: 'EC_prime256v1',
  ...extra,
});

const serviceCa = (id: string) => h.service.pki.getCa(id);

function message(obj: { status?: { conditions?: { type: string; message?: string }[] } }, type: string) {
  return obj.status?.conditions?.find((c) => c.type === type)?.message ?? '';
}

describe('CertificateAuthority', () => {
  const root = 'root';
  let id = '';

  it('creates a root CA, reads it back and publishes ca.crt as an X.509 CA certificate', async () => {
    await createCa(root, spec('Shop Root CA', { outputSecretName: 'shop-root-ca', pollInterval: '10s' }));
    const ready = await h.waitForReady('CertificateAuthority', root);
    id = ready.status?.id ?? '';
    expect(ready.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBe(id);
    const stored = await serviceCa(id);
    expect(stored).toMatchObject({ projectId, type: 'root', status: 'active', commonName: 'Shop Root CA' });
    expect(ready.status).toMatchObject({
      state: 'active',
      dn: stored.dn,
      serialNumber: stored.serialNumber,
      activeCaCertId: stored.activeCaCertId,
    });
    const pem = (await h.readSecret('shop-root-ca'))?.['ca.crt'] ?? '';
    const cert = new x509.X509Certificate(pem);
    expect(cert.getExtension(x509.BasicConstraintsExtension)?.ca).toBe(true);
    expect(cert.subject).toContain('CN=Shop Root CA');
    expect(cert.serialNumber.toLowerCase()).toBe(String(stored.serialNumber).toLowerCase().replace(/:/g, ''));
    expect(new Date(String(ready.status?.notAfter)).getTime()).toBe(cert.notAfter.getTime());
    const notices = await waitFor(
      async () => {
        const found = (await h.events(root)).filter((e) => e.reason === 'DeprecatedEndpoint');
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 10_000, message: 'the DeprecatedEndpoint event' },
    );
    expect(notices).toHaveLength(1);
    expect(notices?.[0]?.type).toBe('Warning');
  });

  it('updates the mutable fields', async () => {
    await h.patch('CertificateAuthority', root, {
      spec: { requireTemplateForIssuance: true, enabled: false },
    });
    await waitFor(
      async () => {
        const ca = await serviceCa(id);
        return ca.requireTemplateForIssuance === true && ca.status === 'disabled';
      },
      { message: 'the template requirement and disabled status in the service' },
    );
    const ready = await h.waitForReady('CertificateAuthority', root);
    await waitFor(async () => (await h.get('CertificateAuthority', root))?.status?.state === 'disabled', {
      message: 'status.state disabled',
    });
    expect(ready.status?.id).toBe(id);
  });

  it('refuses a change of an immutable field with a readable message', async () => {
    const refused = await h
      .patch('CertificateAuthority', root, { spec: { commonName: 'Another Name' } })
      .catch((e: unknown) => e);
    expect(statusCodeOf(refused)).toBe(422);
    expect(String((refused as { body?: unknown }).body)).toContain(
      'a CertificateAuthority cannot be changed after creation',
    );
  });

  it('refuses to manage a CA that the spec does not describe', async () => {
    const existing = await h.service.pki.createCa({
      projectSlug,
      type: 'root',
      commonName: 'Somebody Else',
      organization: '',
      ou: '',
      country: '',
      province: '',
      locality: '',
      keyAlgorithm: 'EC_prime256v1',
    });
    await createCa('mismatch', spec('Not That One', { deletionPolicy: 'Orphan' }), {
      [ANNOTATION_EXTERNAL_ID]: existing.id,
    });
    const failed = await h.waitForCondition('CertificateAuthority', 'mismatch', {
      type: 'Synced',
      status: 'False',
      reason: 'SpecMismatch',
    });
    expect(message(failed, 'Synced')).toContain('commonName, organization, country differ from the spec');
    expect((await serviceCa(existing.id)).commonName).toBe('Somebody Else');
  });

  it('reports an intermediate CA as waiting for its certificate, without an output Secret', async () => {
    await createCa(
      'intermediate',
      spec('Shop Issuing CA', { type: 'intermediate', outputSecretName: 'issuing' }),
    );
    const pending = await h.waitForCondition('CertificateAuthority', 'intermediate', {
      type: 'Ready',
      status: 'False',
      reason: 'PendingCertificate',
    });
    expect(pending.status?.state).toBe('pending-certificate');
    expect(pending.status?.conditions?.find((c) => c.type === 'Synced')?.status).toBe('True');
    expect(await h.readSecret('issuing')).toBeUndefined();
  });

  it('is refused by the API server without a subject or with two validity sources', async () => {
    const empty = { ...spec(''), organization: '', country: '' };
    const noSubject = await h.create('CertificateAuthority', 'no-subject', empty).catch((e: unknown) => e);
    expect(statusCodeOf(noSubject)).toBe(422);
    expect(String((noSubject as { body?: unknown }).body)).toContain('set at least one of commonName');
    const both = spec('Both', { notAfter: '2040-01-01T00:00:00Z' });
    const twice = await h.create('CertificateAuthority', 'two-ends', both).catch((e: unknown) => e);
    expect(statusCodeOf(twice)).toBe(422);
    expect(String((twice as { body?: unknown }).body)).toContain('set at most one of notAfter or validity');
  });

  it('never logs the connection token', () => {
    expect(h.logs()).not.toContain(h.admin.token);
  });
});
