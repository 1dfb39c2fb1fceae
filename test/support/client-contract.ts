// Shared fixture of the client contract tests: a devserver on loopback, bootstrapped, with an
// org-admin client and helpers to make scoped identities and assert typed errors.
import { expect } from 'vitest';
import {
  createServiceClient,
  staticToken,
  type ServiceClient,
  type ServiceClientOptions,
  type ServiceError,
} from '../../src/client/index.ts';
import { startDevServer, type DevServer, type DevServerOptions } from '../../src/devserver/server.ts';

/** A running devserver plus an admin client (the bootstrap identity's token). */
export interface Contract {
  dev: DevServer;
  admin: ServiceClient;
  orgId: string;
  adminToken: string;
  /** A client with the given auth (or none) and test-friendly retry settings. */
  client(options?: Partial<ServiceClientOptions>): ServiceClient;
  /** Creates a project with a unique slug (default environments dev, staging, prod). */
  project(): Promise<{ id: string; slug: string }>;
  /** Creates an identity with token auth and returns it with a client using a fresh token. */
  identity(role?: string): Promise<{ id: string; token: string; client: ServiceClient }>;
  close(): Promise<void>;
}

let counter = 0;

/** Starts and bootstraps a devserver; `close()` stops it and every client made through it. */
export async function startContract(options: DevServerOptions = {}): Promise<Contract> {
  const dev = await startDevServer(options);
  const clients: ServiceClient[] = [];
  const client = (extra: Partial<ServiceClientOptions> = {}): ServiceClient => {
    // Retries off: contract tests assert the first answer of the service.
    const c = createServiceClient({ baseUrl: dev.url, retry: { retries: 0 }, ...extra });
    clients.push(c);
    return c;
  };
  const anon = client();
  const boot = await anon.admin.bootstrap({
    email: 'admin@example.com',
    password: 'correct horse battery staple',
    organization: 'Contract Org',
  });
  const adminToken = boot.identity.credentials.token;
  const admin = client({ auth: staticToken(adminToken) });
  const orgId = boot.organization.id;
  return {
    dev,
    admin,
    orgId,
    adminToken,
    client,
    project: async () => {
      counter += 1;
      const slug = `contract-${counter}-${Date.now().toString(36)}`;
      const p = await admin.projects.create({ projectName: `Contract ${counter}`, slug });
      return { id: p.id, slug: p.slug };
    },
    identity: async (role = 'no-access') => {
      counter += 1;
      const identity = await admin.identities.create({
        name: `contract-${counter}`,
        organizationId: orgId,
        role,
      });
      await admin.identityAuth.token.attach(identity.id, {});
      const { accessToken } = await admin.tokenAuthTokens.create(identity.id, { name: 'contract' });
      return { id: identity.id, token: accessToken, client: client({ auth: staticToken(accessToken) }) };
    },
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await dev.close();
    },
  };
}

/** Awaits a rejection and checks its class, status and (optionally) the service's message. */
export async function expectServiceError(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => ServiceError,
  status: number,
  message?: RegExp,
): Promise<ServiceError> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the call should have failed').toBeInstanceOf(type);
  const serviceError = err as ServiceError;
  expect(serviceError.status).toBe(status);
  if (message) expect(serviceError.serviceMessage).toMatch(message);
  return serviceError;
}
