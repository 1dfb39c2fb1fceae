/**
 * Helpers for the devserver's own tests: start a server on loopback with a controllable
 * clock, bootstrap it, and call it over real HTTP.
 */
import { startDevServer, type DevServer, type DevServerOptions } from './server.ts';

/** The answer of one call: status, parsed JSON body (or text), headers. */
export interface CallResult {
  status: number;
  // Tests read arbitrary fields of the answers.
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

export interface CallOptions {
  body?: unknown;
  /** Bearer token; `null` sends none. Defaults to the bootstrap token. */
  token?: string | null;
  headers?: Record<string, string>;
  /** Raw body text sent as-is (for malformed JSON). */
  raw?: string;
}

export interface TestServer {
  server: DevServer;
  /** The server clock in ms; advance it to expire tokens. */
  clock: { now: number };
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** Bootstraps the instance and remembers the admin token as the default. */
  bootstrap(): Promise<{ token: string; orgId: string; identityId: string }>;
  close(): Promise<void>;
}

/** Starts a devserver on 127.0.0.1 with a settable clock (starting 2030-01-01). */
export async function startTestServer(options: DevServerOptions = {}): Promise<TestServer> {
  const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
  const server = await startDevServer({ now: () => clock.now, ...options });
  let defaultToken: string | undefined;
  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<CallResult> => {
    const token = opts.token === undefined ? defaultToken : opts.token;
    const headers: Record<string, string> = { ...opts.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const res = await fetch(`${server.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Non-JSON answers (PEM/DER, SSE) stay text.
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    server,
    clock,
    call,
    bootstrap: async () => {
      const res = await call('POST', '/api/v1/admin/bootstrap', {
        token: null,
        body: { email: 'admin@example.com', password: 'not-a-real-password', organization: 'Example Org' },
      });
      if (res.status !== 200) throw new Error(`cannot bootstrap test devserver: status ${res.status}`);
      const b = res.body as {
        identity: { id: string; credentials: { token: string } };
        organization: { id: string };
      };
      defaultToken = b.identity.credentials.token;
      return { token: defaultToken, orgId: b.organization.id, identityId: b.identity.id };
    },
    close: () => server.close(),
  };
}

/** An identity with token auth and a token, for acting as a non-admin in tests. */
export async function createIdentityWithToken(
  t: TestServer,
  orgId: string,
  options: { role?: string; tokenAuth?: Record<string, unknown> } = {},
): Promise<{ identityId: string; token: string }> {
  const created = await t.call('POST', '/api/v1/identities', {
    body: {
      name: `identity-${Math.random().toString(36).slice(2, 8)}`,
      organizationId: orgId,
      role: options.role ?? 'no-access',
    },
  });
  const identityId = (created.body as { identity: { id: string } }).identity.id;
  const attached = await t.call('POST', `/api/v1/auth/token-auth/identities/${identityId}`, {
    body: options.tokenAuth ?? {},
  });
  if (attached.status !== 200) throw new Error(`cannot attach token auth: status ${attached.status}`);
  const issued = await t.call('POST', `/api/v1/auth/token-auth/identities/${identityId}/tokens`, {
    body: { name: 'test' },
  });
  return { identityId, token: (issued.body as { accessToken: string }).accessToken };
}
