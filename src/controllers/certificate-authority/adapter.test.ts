// The CertificateAuthority adapter against a devserver on loopback.
import * as x509 from '../../x509.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { certificateAuthoritySpec, type CertificateAuthoritySpec } from '../../api/v1alpha1/index.ts';
import { CREATE_INCOMPLETE } from '../../managed/ownership.ts';
import type { ExternalClient, ManagedObject } from '../../managed/external-client.ts';
import { TerminalError, WaitingError } from '../../runtime/errors.ts';
import {
  bound,
  context,
  fakeServices,
  managed,
  readyObject,
  resolving,
  type FakeWorld,
} from '../project/testing.ts';
import { certificateAuthorityAdapter } from './adapter.ts';
import { SPEC_MISMATCH } from './lookup.ts';
import { PENDING_REASON } from './ready-check.ts';
import type { CaStatusFields } from './mapping.ts';
import type { CaRefs } from './references.ts';

let contract: Contract;
let world: FakeWorld;
let refs: CaRefs;

beforeAll(async () => {
  contract = await startContract();
  const project = await contract.project();
  refs = { projectId: project.id, projectSlug: project.slug };
  world = {
    objects: { Project: [readyObject('Project', 'shop', project.id, { spec: { slug: project.slug } })] },
    secrets: {},
    now: new Date(),
  };
});
afterAll(async () => contract.close());

const ca = (name: string, extra: Record<string, unknown> = {}) =>
  managed<CertificateAuthoritySpec>(
    'CertificateAuthority',
    name,
    certificateAuthoritySpec.parse({
      connectionRef: { name: 'c' },
      projectRef: { name: 'shop' },
      type: 'root',
      commonName: `${name} root`,
      organization: 'Example',
      keyAlgorithm: 'EC_prime256v1',
      outputSecretName: `${name}-ca`,
      ...extra,
    }),
  );

type Client = ExternalClient<CertificateAuthoritySpec, CaRefs, CaStatusFields>;

async function connect(obj: ManagedObject<CertificateAuthoritySpec>): Promise<Client> {
  return certificateAuthorityAdapter(fakeServices(contract.admin, world)).connect(obj, context(refs));
}

describe('CertificateAuthority adapter', () => {
  it('creates a root CA and publishes a parseable CA certificate', async () => {
    const obj = ca('alpha', { validity: '8760h' });
    const client = await connect(obj);
    expect(await client.observe(obj, context(refs))).toEqual({ exists: false });
    const created = await client.create(obj, context(refs));
    expect(created.status?.state).toBe('active');
    expect(created.status?.dn).toContain('alpha root');
    const pem = created.secretData?.[0]?.data['ca.crt'] ?? '';
    expect(created.secretData?.[0]?.name).toBe('alpha-ca');
    const cert = new x509.X509Certificate(pem);
    expect(cert.getExtension(x509.BasicConstraintsExtension)?.ca).toBe(true);
    expect(cert.subject).toContain('CN=alpha root');
    const days = (cert.notAfter.getTime() - cert.notBefore.getTime()) / 86_400_000;
    expect(Math.round(days)).toBe(365);
    const seen = await client.observe(obj, context(refs, created.externalId));
    expect(seen).toMatchObject({ exists: true, upToDate: true, externalId: created.externalId });
    expect(seen.exists && seen.status?.serialNumber).toBe(created.status?.serialNumber);
  });

  it('creates a disabled CA and corrects drift of the mutable fields', async () => {
    const obj = ca('beta', { enabled: false });
    const client = await connect(obj);
    const { externalId, status } = await client.create(obj, context(refs));
    expect(status?.state).toBe('disabled');
    await contract.admin.pki.updateCa(externalId, { status: 'active', requireTemplateForIssuance: true });
    const drifted = await client.observe(obj, context(refs, externalId));
    expect(drifted).toMatchObject({ upToDate: false, diff: 'requireTemplateForIssuance, enabled' });
    expect((await client.update(obj, bound(refs, externalId))).status?.state).toBe('disabled');
    expect(await contract.admin.pki.getCa(externalId)).toMatchObject({
      status: 'disabled',
      requireTemplateForIssuance: false,
    });
    expect(await client.observe(obj, context(refs, externalId))).toMatchObject({ upToDate: true });
  });

  it('reports an intermediate CA as waiting for its certificate, without output', async () => {
    const obj = ca('gamma', { type: 'intermediate' });
    const client = await connect(obj);
    const { externalId, status, secretData } = await client.create(obj, context(refs));
    expect(status?.state).toBe('pending-certificate');
    expect(secretData).toBeUndefined();
    expect(client.readyCheck?.(obj, status)).toMatchObject({ reason: PENDING_REASON });
    const seen = await client.observe(obj, context(refs, externalId));
    expect(seen).toMatchObject({ exists: true, upToDate: true });
    expect(seen.exists && seen.secretData).toBeUndefined();
  });

  it('refuses to adopt a CA that the spec does not describe', async () => {
    const client = await connect(ca('delta'));
    const { externalId } = await client.create(ca('delta'), context(refs));
    const error: unknown = await client
      .observe(ca('delta', { commonName: 'someone else' }), context(refs, externalId))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalError);
    expect(error).toMatchObject({ reason: SPEC_MISMATCH });
    expect(String(error)).toContain('commonName');
    const elsewhere = await client
      .observe(ca('delta'), context({ ...refs, projectId: 'other-project' }, externalId))
      .catch((e: unknown) => e);
    expect(elsewhere).toMatchObject({ reason: SPEC_MISMATCH });
    expect(String(elsewhere)).toContain('its projectRef differ');
  });

  it('deletes the CA; an interrupted create needs a human decision', async () => {
    const obj = ca('epsilon');
    const client = await connect(obj);
    const { externalId } = await client.create(obj, context(refs));
    await client.delete(obj, bound(refs, externalId));
    expect(await client.observe(obj, context(refs, externalId))).toEqual({ exists: false });
    const recovery: unknown = await client.findByNaturalKey(obj, context(refs)).catch((e: unknown) => e);
    expect(recovery).toBeInstanceOf(TerminalError);
    expect(recovery).toMatchObject({ reason: CREATE_INCOMPLETE });
  });
});

describe('CertificateAuthority references', () => {
  it('resolves the project id and slug, waits for a project that is not Ready, skips while deleting', async () => {
    const adapter = certificateAuthorityAdapter(fakeServices(contract.admin, world));
    const resolved = await adapter.resolveReferences?.(ca('zeta'), resolving());
    expect(resolved).toEqual(refs);
    const missing = ca('zeta', { projectRef: { name: 'nope' } });
    const error: unknown = await adapter.resolveReferences?.(missing, resolving()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitingError);
    expect(await adapter.resolveReferences?.(missing, resolving(true))).toEqual({});
  });
});
