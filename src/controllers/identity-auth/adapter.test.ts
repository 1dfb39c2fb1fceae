// The IdentityAuth adapter against a devserver on loopback: every method attaches without
// drift, drift is corrected, a method change revokes the old one, credentials are issued,
// rotated and revoked after the overlap, and never twice for one rotation step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { identityAuthSpec, type IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import { createCa } from '../../devserver/domain/pki.ts';
import type { ExternalClient, ManagedObject } from '../../managed/external-client.ts';
import { ConflictError } from '../../runtime/errors.ts';
import { bound, context, fakeServices, managed, readyObject, type FakeWorld } from '../project/testing.ts';
import { identityAuthAdapter } from './adapter.ts';
import type { IdentityAuthRefs, IdentityAuthStatusFields } from './status.ts';
import { ANNOTATION_CREDENTIAL_ISSUE_STARTED } from './issuance.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';

type Client = ExternalClient<IdentityAuthSpec, IdentityAuthRefs, IdentityAuthStatusFields>;
type Obj = ManagedObject<IdentityAuthSpec>;

let contract: Contract;
let world: FakeWorld;
let caPem: string;
let counter = 0;

async function selfSignedCa(): Promise<string> {
  const ca = await createCa({ type: 'root', commonName: 'Test CA', keyAlgorithm: 'EC_prime256v1' });
  return ca.certificate ?? '';
}

beforeAll(async () => {
  contract = await startContract();
  caPem = await selfSignedCa();
  world = { organizationId: contract.orgId, objects: { Identity: [] }, secrets: {}, now: new Date() };
});
afterAll(async () => contract.close());

/** A fresh identity in the service and a Ready Identity resource for it. */
async function freshIdentity(): Promise<{ name: string; id: string }> {
  counter += 1;
  const name = `ident-${counter}`;
  const created = await contract.admin.identities.create({ name, organizationId: contract.orgId });
  world.objects.Identity?.push(readyObject('Identity', name, created.id));
  return { name, id: created.id };
}

function auth(name: string, identity: string, extra: Record<string, unknown>): Obj {
  const spec = identityAuthSpec.parse({
    connectionRef: { name: 'c' },
    identityRef: { name: identity },
    ...extra,
  });
  return managed<IdentityAuthSpec>('IdentityAuth', name, spec);
}

async function setup(obj: Obj): Promise<{ client: Client; refs: IdentityAuthRefs }> {
  const adapter = identityAuthAdapter(fakeServices(contract.admin, world));
  const refs = await adapter.resolveReferences!(obj, {
    deleting: false,
    waitRequeueMs: 1_000,
    signal: new AbortController().signal,
    log: context(undefined).log,
  });
  return { client: await adapter.connect(obj, context(refs)), refs };
}

/** Creates, records status and publishes the Secret like the reconciler would. */
async function created(obj: Obj, client: Client, refs: IdentityAuthRefs): Promise<string> {
  const result = await client.create(obj, context(refs));
  obj.status = { ...(result.status ?? {}), id: result.externalId };
  for (const output of result.secretData ?? []) world.secrets[`ns/${output.name}`] = { ...output.data };
  return result.externalId;
}

/** The credentials status recorded on `obj`. */
function credentialsOf(obj: Obj) {
  return (obj.status as IdentityAuthStatusFields | undefined)?.credentials;
}

/** Whether the service reports token `id` as revoked (or no longer knows it). */
async function tokenRevoked(id: string): Promise<boolean> {
  try {
    return (await contract.admin.tokenAuthTokens.get(id)).isAccessTokenRevoked === true;
  } catch (error) {
    return (error as { status?: number }).status === 404;
  }
}

async function updated(obj: Obj, client: Client, refs: IdentityAuthRefs, id: string): Promise<void> {
  const result = await client.update(obj, bound(refs, id));
  obj.status = { ...(result.status ?? obj.status ?? {}), id };
  for (const output of result.secretData ?? []) world.secrets[`ns/${output.name}`] = { ...output.data };
}

describe('IdentityAuth methods', () => {
  it.each([
    { method: 'token', block: {} },
    {
      method: 'universal',
      block: { universal: { clientSecretTrustedIps: ['10.0.0.0/8'], lockoutThreshold: 5 } },
    },
    {
      method: 'jwt',
      block: {
        jwt: {
          configurationType: 'jwks',
          jwksUrl: 'https://idp.example/jwks',
          boundAudiences: ['a', 'b'],
          boundClaims: { g: 'x,y' },
        },
      },
    },
    {
      method: 'jwt',
      block: { jwt: { configurationType: 'static', publicKeys: ['-----BEGIN PUBLIC KEY-----'] } },
    },
    {
      method: 'oidc',
      block: {
        oidc: {
          oidcDiscoveryUrl: 'https://idp.example',
          boundIssuer: 'https://idp.example',
          boundAudiences: ['x'],
        },
      },
    },
    { method: 'tlsCert', block: { tlsCert: { caCertificate: 'CA', allowedCommonNames: ['a', 'b'] } } },
    {
      method: 'aws',
      block: {
        aws: {
          allowedAccountIds: ['123456789012', '210987654321'],
          allowedPrincipalArns: ['arn:aws:iam::123456789012:role/app'],
        },
      },
    },
  ])('$method attaches and then observes no drift', async ({ method, block }) => {
    const identity = await freshIdentity();
    const withCa = method === 'tlsCert' ? { tlsCert: { ...block.tlsCert, caCertificate: caPem } } : block;
    const obj = auth(`auth-${counter}`, identity.name, {
      method,
      accessTokenTrustedIps: ['10.0.0.0/8', '192.168.1.1'],
      ...withCa,
    });
    const { client, refs } = await setup(obj);
    expect(await client.observe(obj, context(refs))).toEqual({ exists: false });
    const id = await created(obj, client, refs);
    const seen = await client.observe(obj, context(refs, id));
    expect(seen).toMatchObject({ exists: true, upToDate: true, externalId: id });
    await expect(client.findByNaturalKey(obj, context(refs))).resolves.toEqual([
      { id, createdAt: expect.any(String) as string },
    ]);
  });
});

describe('IdentityAuth drift, method change and deletion', () => {
  it('corrects TTL and trusted IPs changed in the service', async () => {
    const identity = await freshIdentity();
    const obj = auth('drift', identity.name, { method: 'aws', aws: { allowedAccountIds: ['123456789012'] } });
    const { client, refs } = await setup(obj);
    const id = await created(obj, client, refs);
    await contract.admin.identityAuth.aws.update(identity.id, {
      accessTokenTTL: 60,
      accessTokenTrustedIps: [{ ipAddress: '10.1.0.0/16' }],
      allowedAccountIds: '123456789012',
      allowedPrincipalArns: '',
    });
    const drifted = await client.observe(obj, context(refs, id));
    expect(drifted).toMatchObject({ upToDate: false, diff: 'accessTokenTTL, accessTokenTrustedIps' });
    await updated(obj, client, refs, id);
    expect(await client.observe(obj, context(refs, id))).toMatchObject({ upToDate: true });
    const config = await contract.admin.identityAuth.aws.get(identity.id);
    expect(config.allowedAccountIds).toBe('123456789012');
  });

  it('revokes the old method when the method changes, and revokes on delete', async () => {
    const identity = await freshIdentity();
    const first = auth('switch', identity.name, { method: 'token' });
    const { client, refs } = await setup(first);
    await created(first, client, refs);
    const second = auth('switch', identity.name, { method: 'universal' });
    second.status = first.status ?? {};
    expect(await client.observe(second, context(refs))).toEqual({ exists: false });
    const id = await created(second, client, refs);
    await expect(contract.admin.identityAuth.token.get(identity.id)).rejects.toMatchObject({ status: 404 });
    expect(second.status).toMatchObject({ method: 'universal', identityId: identity.id });
    await client.delete(second, bound(refs, id));
    await expect(contract.admin.identityAuth.universal.get(identity.id)).rejects.toMatchObject({
      status: 404,
    });
    await client.delete(second, bound(refs, id));
  });

  it('notices changed JWT key material through the recorded hash', async () => {
    const identity = await freshIdentity();
    const jwt = (key: string) => ({ method: 'jwt', jwt: { configurationType: 'static', publicKeys: [key] } });
    const obj = auth('keys', identity.name, jwt('KEY-1'));
    const { client, refs } = await setup(obj);
    const id = await created(obj, client, refs);
    const changed = auth('keys', identity.name, jwt('KEY-2'));
    changed.status = obj.status ?? {};
    expect(await client.observe(changed, context(refs, id))).toMatchObject({
      upToDate: false,
      diff: 'publicKeys/jwksCaCert',
    });
    await updated(changed, client, refs, id);
    expect(await client.observe(changed, context(refs, id))).toMatchObject({ upToDate: true });
  });
});

describe('IdentityAuth credentials', () => {
  /** An IdentityAuth with rotated token credentials, created; its first token checked. */
  async function issuedTokens() {
    const identity = await freshIdentity();
    const obj = auth('tokens', identity.name, {
      method: 'token',
      credentials: { secretName: 'tokens-creds', rotateEvery: '24h', overlap: '1h' },
    });
    const { client, refs } = await setup(obj);
    const id = await created(obj, client, refs);
    const token = world.secrets['ns/tokens-creds']?.accessToken ?? '';
    expect(token).not.toBe('');
    expect(JSON.stringify(obj.status)).not.toContain(token);
    expect(await client.observe(obj, context(refs, id))).toMatchObject({ upToDate: true });
    const wake = client.requeueAfterMs?.(obj, obj.status as IdentityAuthStatusFields) ?? 0;
    expect(wake).toBeGreaterThan(23 * 3_600_000);
    return { obj, client, refs, id, first: credentialsOf(obj)?.current?.id ?? '' };
  }

  it('issues an access token, replaces it on schedule and revokes the old one after the overlap', async () => {
    const { obj, client, refs, id, first } = await issuedTokens();
    world.now = new Date(world.now.getTime() + 25 * 3_600_000);
    expect(await client.observe(obj, context(refs, id))).toMatchObject({
      diff: 'credentials (new one: rotation is due)',
    });
    await updated(obj, client, refs, id);
    expect(credentialsOf(obj)?.current?.id).not.toBe(first);
    expect(credentialsOf(obj)?.retiring?.map((r) => r.id)).toEqual([first]);
    expect(await tokenRevoked(first)).toBe(false);

    world.now = new Date(world.now.getTime() + 2 * 3_600_000);
    expect(await client.observe(obj, context(refs, id))).toMatchObject({ diff: 'credentials (1 to revoke)' });
    await updated(obj, client, refs, id);
    expect(credentialsOf(obj)?.retiring).toBeUndefined();
    expect(await tokenRevoked(first)).toBe(true);
  });

  it('issues a client secret that logs in, and a new one when the Secret is lost', async () => {
    const identity = await freshIdentity();
    const obj = auth('secrets', identity.name, {
      method: 'universal',
      credentials: { secretName: 'ua-creds' },
    });
    const { client, refs } = await setup(obj);
    const id = await created(obj, client, refs);
    const creds = world.secrets['ns/ua-creds'] ?? {};
    expect(creds.clientId).toBe((obj.status as IdentityAuthStatusFields).clientId);
    const login = await contract.admin.auth.loginUniversal({
      clientId: creds.clientId ?? '',
      clientSecret: creds.clientSecret ?? '',
    });
    expect(login.accessToken).toBeTruthy();
    delete world.secrets['ns/ua-creds'];
    expect(await client.observe(obj, context(refs, id))).toMatchObject({
      upToDate: false,
      diff: 'credentials (new one: Secret ua-creds does not hold it)',
    });
    await updated(obj, client, refs, id);
    expect(world.secrets['ns/ua-creds']?.clientSecret).toBeTruthy();
    expect(world.secrets['ns/ua-creds']?.clientSecret).not.toBe(creds.clientSecret);
  });

  it('replaces a credential revoked in the service', async () => {
    const identity = await freshIdentity();
    const obj = auth('revoked', identity.name, {
      method: 'token',
      credentials: { secretName: 'revoked-creds' },
    });
    const { client, refs } = await setup(obj);
    const id = await created(obj, client, refs);
    const first = credentialsOf(obj)?.current?.id ?? '';
    await contract.admin.tokenAuthTokens.revoke(first);
    expect(await client.observe(obj, context(refs, id))).toMatchObject({
      diff: 'credentials (new one: the current one is revoked, used up or expired)',
    });
    await updated(obj, client, refs, id);
    expect(credentialsOf(obj)?.current?.id).not.toBe(first);
    expect(credentialsOf(obj)?.retiring).toBeUndefined();
  });
});

describe('IdentityAuth: one credential per rotation step', () => {
  /** Token credentials created on the devserver's clock (earlier tests moved `world.now`). */
  async function tokenAuth(name: string) {
    world.now = new Date();
    const identity = await freshIdentity();
    const obj = auth(name, identity.name, { method: 'token', credentials: { secretName: `${name}-creds` } });
    const { client, refs } = await setup(obj);
    const id = await created(obj, client, refs);
    const label = `coffer:ns/${name}`;
    const live = async () =>
      (await contract.admin.tokenAuthTokens.list(identity.id))
        .filter((t) => t.name === label && t.isAccessTokenRevoked !== true)
        .map((t) => t.id);
    return { obj, client, refs, id, live, first: credentialsOf(obj)?.current?.id ?? '' };
  }

  /** A context whose `annotate` stores the annotations on `obj`, as the reconciler's guarded write does. */
  function storing(obj: Obj, refs: IdentityAuthRefs, id: string) {
    const annotate = (changes: Readonly<Record<string, string | null>>) => {
      const next = { ...obj.metadata.annotations };
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) delete next[key];
        else next[key] = value;
      }
      obj.metadata.annotations = next;
      return Promise.resolve();
    };
    return { ...bound(refs, id), annotate };
  }

  it('issues nothing when the issuance mark finds the resource changed since it was read', async () => {
    const { obj, client, refs, id, live, first } = await tokenAuth('stale');
    // The read the second reconcile works on: the id recorded, the status with the token not yet.
    const stale: Obj = { ...obj, status: { id } };
    const conflict = new ConflictError(
      commonReasons.names.Conflict,
      'cannot mark credential issuance: changed',
    );
    const refusing = { ...bound(refs, id), annotate: () => Promise.reject(conflict) };
    expect(await client.observe(stale, refusing)).toMatchObject({
      diff: 'credentials (new one: none issued yet)',
    });
    await expect(client.update(stale, refusing)).rejects.toBe(conflict);
    expect(await live()).toEqual([first]);
  });

  it('revokes what an interrupted issuance left, never a recorded one, before issuing anew', async () => {
    const { obj, client, refs, id, live, first } = await tokenAuth('interrupted');
    delete world.secrets['ns/interrupted-creds'];
    // Issued and marked, but the reconcile ends before publishing and recording it.
    const lost = await client.update(obj, storing(obj, refs, id));
    expect(obj.metadata.annotations?.[ANNOTATION_CREDENTIAL_ISSUE_STARTED]).toBeDefined();
    const lostId = (lost.status as IdentityAuthStatusFields).credentials?.current?.id ?? '';
    expect((await live()).sort()).toEqual([first, lostId].sort());

    await updated(obj, client, refs, id);
    const replacement = credentialsOf(obj)?.current?.id ?? '';
    expect(await tokenRevoked(lostId)).toBe(true);
    expect(credentialsOf(obj)?.retiring?.map((r) => r.id)).toEqual([first]);
    expect((await live()).sort()).toEqual([first, replacement].sort());
  });
});
