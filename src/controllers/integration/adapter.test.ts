// The Integration adapter against a devserver on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { integrationSpec, type IntegrationSpec } from '../../api/v1alpha1/index.ts';
import type { ServiceClient } from '../../client/index.ts';
import type { ExternalClient, ManagedObject } from '../../managed/external-client.ts';
import { TerminalError } from '../../runtime/errors.ts';
import { bound, context, fakeServices, managed, type FakeWorld } from '../project/testing.ts';
import { integrationAdapter } from './adapter.ts';
import { INTEGRATIONS_DEPRECATED } from './create.ts';
import { credentialsHash, type Credentials } from './credentials.ts';
import type { IntegrationStatusFields } from './mapping.ts';
import type { IntegrationRefs } from './references.ts';
import { seedIntegration } from './testing.ts';

let contract: Contract;
let world: FakeWorld;
let projectId: string;
const credentials: Credentials = { accessId: 'AKIA-TEST', accessToken: 'token-value-1' };

beforeAll(async () => {
  contract = await startContract({ enableAdmin: true });
  projectId = (await contract.project()).id;
  world = { objects: {}, secrets: {}, now: new Date() };
});
afterAll(async () => contract.close());

type Client = ExternalClient<IntegrationSpec, IntegrationRefs, IntegrationStatusFields>;
type Obj = ManagedObject<IntegrationSpec>;

const integration = (app: string, extra: Record<string, unknown> = {}, status?: IntegrationStatusFields) =>
  managed<IntegrationSpec>(
    'Integration',
    app,
    integrationSpec.parse({
      connectionRef: { name: 'c' },
      projectRef: { name: 'shop' },
      integration: 'aws-secret-manager',
      environment: 'prod',
      app,
      region: 'eu-west-1',
      auth: {
        accessIdSecretRef: { name: 'aws', key: 'id' },
        accessTokenSecretRef: { name: 'aws', key: 'secret' },
      },
      ...extra,
    }),
    status ? { status } : {},
  );

const refs = (creds = credentials): IntegrationRefs => ({ projectId, credentials: creds });

function connect(obj: Obj, client: ServiceClient = contract.admin): Promise<Client> {
  return integrationAdapter(fakeServices(client, world)).connect(obj, context(refs()));
}

/** An existing integration with its own auth record, as someone made it before the 403 era. */
async function seed(app: string, environment = 'prod') {
  const auth = await contract.admin.integrations.auth.createWithAccessToken({
    workspaceId: projectId,
    integration: 'aws-secret-manager',
    accessId: 'AKIA-OLD',
    accessToken: 'old-token-value',
  });
  return seedIntegration(contract.dev.url, { projectId, integrationAuthId: auth.id, environment, app });
}

const authIds = async () => (await contract.admin.integrations.auth.list(projectId)).map((a) => a.id).sort();

describe('Integration adapter: create', () => {
  it('reports the service’s 403 and removes the auth record it stored for the attempt', async () => {
    const obj = integration('refused');
    const client = await connect(obj);
    const before = await authIds();
    const error: unknown = await client.create(obj, context(refs())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalError);
    expect(error).toMatchObject({ reason: INTEGRATIONS_DEPRECATED });
    expect(String(error)).toContain('service answered 403');
    expect(String(error)).toContain('Secret Sync');
    expect(String(error)).not.toContain(credentials.accessToken);
    expect(await authIds()).toEqual(before);
  });
});

describe('Integration adapter: adoption, drift, credentials', () => {
  it('adopts by natural key and corrects settings drift', async () => {
    const existing = await seed('adopt-me');
    const obj = integration('adopt-me');
    const client = await connect(obj);
    const seen = await client.observe(obj, context(refs()));
    expect(seen).toMatchObject({ exists: true, upToDate: false, externalId: existing.id });
    expect(seen.exists && seen.diff).toBe('region, credentials');
    await contract.admin.integrations.update(existing.id, { isActive: false, secretPath: '/' });
    const drifted = await client.observe(obj, context(refs(), existing.id));
    expect(drifted.exists && drifted.diff).toBe('isActive, region, credentials');
    const recordsBefore = await authIds();
    const { status } = await client.update(obj, bound(refs(), existing.id));
    expect(await contract.admin.integrations.get(existing.id)).toMatchObject({
      isActive: true,
      region: 'eu-west-1',
    });
    // The credentials went into the integration's own record, in place: no record added or lost.
    expect(status).toMatchObject({
      credentialsApplied: true,
      integrationAuthId: existing.integrationAuthId,
      authHash: credentialsHash(obj, credentials),
    });
    expect(client.readyCheck?.(obj, status)).toBeUndefined();
    expect(await authIds()).toEqual(recordsBefore);
    expect(await contract.admin.integrations.get(existing.id)).toMatchObject({
      integrationAuthId: existing.integrationAuthId,
    });
    const settled = await client.observe(integration('adopt-me', {}, status), context(refs(), existing.id));
    expect(settled).toMatchObject({ upToDate: true });
  });

  it('rotates credentials in the integration’s own record on the next change', async () => {
    const existing = await seed('in-place');
    const obj = integration('in-place');
    const client = await connect(obj);
    const first = await client.update(obj, bound(refs(), existing.id));
    const rotated = { ...credentials, accessToken: 'token-value-2' };
    const after = await client.observe(
      integration('in-place', {}, first.status),
      context(refs(rotated), existing.id),
    );
    expect(after.exists && after.diff).toBe('credentials');
    const recordsBefore = await authIds();
    const { status } = await client.update(
      integration('in-place', {}, first.status),
      bound(refs(rotated), existing.id),
    );
    expect(status).toMatchObject({ credentialsApplied: true, authHash: credentialsHash(obj, rotated) });
    expect(await authIds()).toEqual(recordsBefore);
  });

  it('refuses an ambiguous natural key and an integration of another type', async () => {
    await seed('twice');
    await seed('twice');
    const obj = integration('twice');
    const client = await connect(obj);
    const error: unknown = await client.observe(obj, context(refs())).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'AmbiguousNaturalKey' });
    const other = await seed('typed');
    const github = integration('typed', { integration: 'github' });
    const mismatch: unknown = await client
      .observe(github, context(refs(), other.id))
      .catch((e: unknown) => e);
    expect(mismatch).toMatchObject({ reason: 'SpecMismatch' });
    expect(await client.findByNaturalKey(obj, context(refs()))).toHaveLength(2);
  });
});

describe('Integration adapter: delete', () => {
  it('deletes the integration and its auth record once nothing uses it', async () => {
    const first = await seed('delete-me');
    const obj = integration('delete-me');
    const client = await connect(obj);
    await client.delete(obj, bound(refs(), first.id));
    expect(await client.observe(obj, context(refs(), first.id))).toEqual({ exists: false });
    expect(await authIds()).not.toContain(first.integrationAuthId);
    await client.delete(obj, bound(refs(), first.id));
  });

  it('keeps an auth record another integration still uses', async () => {
    const first = await seed('shared-a');
    const second = await seedIntegration(contract.dev.url, {
      projectId,
      integrationAuthId: first.integrationAuthId,
      environment: 'prod',
      app: 'shared-b',
    });
    const client = await connect(integration('shared-a'));
    await client.delete(integration('shared-a'), bound(refs(), first.id));
    expect(await authIds()).toContain(first.integrationAuthId);
    expect((await contract.admin.integrations.get(second.id)).id).toBe(second.id);
  });
});
