// The Kubernetes, JWT, OIDC, TLS-certificate and AWS logins are in the service's write rate-limit
// bucket (`rateLimit: writeLimit` in their routers), like the universal-auth login: failed logins
// count toward it, so a caller guessing credentials is throttled with 429 on every method.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './test-support.ts';

let t: TestServer | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

const LOGINS = ['kubernetes-auth', 'jwt-auth', 'oidc-auth', 'tls-cert-auth', 'aws-auth'];

describe('login rate limit', () => {
  it.each(LOGINS)('%s: failed logins use up the write bucket, then 429', async (method) => {
    t = await startTestServer({ rateLimit: { write: 2 } });
    const attempt = () =>
      t!.call('POST', `/api/v1/auth/${method}/login`, {
        token: null,
        body: { identityId: '00000000-0000-4000-8000-000000000000', jwt: 'x.y.z' },
        headers: { 'x-identity-tls-cert-auth-client-cert': 'not-a-certificate' },
      });
    const statuses = [(await attempt()).status, (await attempt()).status, (await attempt()).status];
    expect(statuses.slice(0, 2).every((s) => s >= 400 && s < 429)).toBe(true);
    expect(statuses[2]).toBe(429);
  });
});
