// A (Cluster)Connection's `projected.path` names a file on the operator's own file system; the
// operator sends only a JWT for the connection's `projected.audience` from its projected-token
// directory (`--projected-token-dir`). A file outside it (a canary file, /proc/self/environ), a
// symlink in it leading out, a file in it that is not a JWT and a JWT in it for another audience
// each end Ready and Synced False with their reason on both kinds (they share the token code), and
// the connections' service — a devserver of their own — receives no request at all, while a JWT
// for the audience from the same directory does reach its login. No content of a refused file
// appears in status, events or the operator's log.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer, type DevServer } from '../../src/devserver/server.ts';
import { clusterFromInjected } from '../support/kube.ts';
import { startOperatorHarness, type OperatorHarness } from '../support/operator.ts';
import { writeProjectedToken } from '../support/projected-token.ts';

const suffix = Math.random().toString(36).slice(2, 7);
const canary = `CANARY-${suffix}-${Math.random().toString(36).slice(2)}`;
const tmp = mkdtempSync(join(tmpdir(), 'coffer-token-files-'));
/** The operator's projected-token directory; `tmp/canary` lies beside it, outside. */
const tokenDir = join(tmp, 'serviceaccount');
/** The operator's own namespace, where a Connection may use the projected token. */
const operatorNs = `coffer-system-${suffix}`;
/** Every ServiceAccount token the test minted, to check none leaks. */
const minted: string[] = [];

let h: OperatorHarness;
/** The connections' service: every request a refused file would have caused lands here. */
let trap: DevServer;

async function mint(audiences: string[]): Promise<string> {
  const res = await h.core.createNamespacedServiceAccountToken({
    namespace: operatorNs,
    name: 'coffer',
    body: { spec: { audiences, expirationSeconds: 600 } },
  });
  const token = res.status?.token ?? '';
  minted.push(token);
  return token;
}

beforeAll(async () => {
  trap = await startDevServer({ port: 0 });
  const core = clusterFromInjected().kubeConfig().makeApiClient(CoreV1Api);
  // The only watched namespace: the operator's own (the harness's namespace stays unwatched).
  await core.createNamespace({ body: { metadata: { name: operatorNs } } });
  h = await startOperatorHarness({
    connection: false,
    operator: { namespaces: [operatorNs], operatorNamespace: operatorNs, projectedTokenDir: tokenDir },
  });
  await h.core.createNamespacedServiceAccount({
    namespace: operatorNs,
    body: { metadata: { name: 'coffer' } },
  });
  writeProjectedToken(tokenDir, await mint(['coffer']));
  writeFileSync(join(tmp, 'canary'), `${canary}\n`);
  symlinkSync('../canary', join(tokenDir, 'escape'));
  writeFileSync(join(tokenDir, 'not-a-jwt'), `TOKEN=${canary}\n`);
  mkdirSync(join(tokenDir, 'other'));
  writeFileSync(join(tokenDir, 'other', 'token'), await mint(['elsewhere']));
}, 120_000);

afterAll(async () => {
  await h?.stop();
  await trap?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** `text` holds neither the canary nor a minted token. */
function expectNothingLeaked(text: string, what: string): void {
  expect(text, what).not.toContain(canary);
  for (const token of minted) expect(text.includes(token), what).toBe(false);
}

const cases = [
  {
    what: 'a file outside the directory',
    path: join(tmp, 'canary'),
    reason: 'TokenSourceNotAllowed',
    message:
      /canary may not be read: it is not in the projected-token directory \S+ \(--projected-token-dir\)$/,
  },
  {
    what: 'the operator’s environment',
    path: '/proc/self/environ',
    reason: 'TokenSourceNotAllowed',
    message:
      /^the projected token file \/proc\/self\/environ may not be read: it is not in the projected-token/,
  },
  {
    what: 'a symlink in the directory leading out',
    path: join(tokenDir, 'escape'),
    reason: 'TokenSourceNotAllowed',
    message: /escape may not be read: through its symlinks it leads out of the projected-token directory/,
  },
  {
    what: 'a file in the directory that is not a JWT',
    path: join(tokenDir, 'not-a-jwt'),
    reason: 'InvalidTokenFile',
    message:
      /not-a-jwt does not hold a JWT \(it is not three base64url parts separated by dots\), so it is never sent$/,
  },
  {
    what: 'a JWT in the directory for another audience',
    path: join(tokenDir, 'other', 'token'),
    reason: 'TokenAudienceMismatch',
    message:
      /other\/token is not for audience coffer \(its aud claim does not include it\), so it is never sent/,
  },
] as const;
const methods = ['kubernetes', 'jwt', 'oidc'] as const;

function spec(kind: 'ClusterConnection' | 'Connection', path: string, method: (typeof methods)[number]) {
  return {
    url: trap.url,
    auth: { [method]: { identityId: 'any-identity', serviceAccountToken: { projected: { path } } } },
    ...(kind === 'ClusterConnection' ? { allowedNamespaces: { names: [operatorNs] } } : {}),
  };
}

describe('projected token files', () => {
  it.each(['ClusterConnection', 'Connection'] as const)(
    '%s: each refused file ends Ready and Synced False with its reason, and nothing reaches the service',
    async (kind) => {
      const at = { namespace: operatorNs };
      const name = (i: number) => `file-${kind.toLowerCase()}-${i}`;
      for (const [i, c] of cases.entries())
        await h.create(kind, name(i), spec(kind, c.path, methods[i % 3] ?? 'jwt'), at);
      for (const [i, c] of cases.entries()) {
        const expected = { type: 'Synced', status: 'False', reason: c.reason } as const;
        const obj = await h.waitForCondition(kind, name(i), expected, { ...at, timeoutMs: 30_000 });
        const ready = obj.status?.conditions?.find((condition) => condition.type === 'Ready');
        expect(ready, c.what).toMatchObject({ status: 'False', reason: c.reason });
        expect(ready?.message, c.what).toMatch(c.message);
        expectNothingLeaked(JSON.stringify(obj), `${c.what}: status`);
        const events = await h.events(name(i), { namespace: kind === 'Connection' ? operatorNs : 'default' });
        expectNothingLeaked(JSON.stringify(events), `${c.what}: events`);
      }
      // Not one request of any kind: no login carried any of these files.
      expect(trap.stats.requests.total).toBe(0);
      expectNothingLeaked(h.logs(), 'operator log');
    },
  );

  it('a JWT for the audience from the directory (through the kubelet’s ..data link) does reach the login', async () => {
    await h.create(
      'ClusterConnection',
      'file-valid',
      spec('ClusterConnection', join(tokenDir, 'token'), 'jwt'),
    );
    await h.waitForCondition(
      'ClusterConnection',
      'file-valid',
      { type: 'Synced', status: 'False' },
      { timeoutMs: 30_000 },
    );
    // The devserver knows no such identity; what matters is that the token was sent to it.
    expect(trap.stats.requests.byRoute['POST /api/v1/auth/jwt-auth/login']).toBeGreaterThanOrEqual(1);
    expectNothingLeaked(h.logs(), 'operator log');
  });
});
