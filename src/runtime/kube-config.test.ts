import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpMethod, RequestContext } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { PooledKubeConfig } from './kube-config.ts';

const dirs: string[] = [];
const configs: PooledKubeConfig[] = [];

afterEach(async () => {
  await Promise.all(configs.splice(0).map((kc) => kc.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function pooled(user: Record<string, unknown>): PooledKubeConfig {
  const kc = new PooledKubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', caData: Buffer.from('ca').toString('base64') }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  configs.push(kc);
  return kc;
}

async function dispatcherOf(kc: PooledKubeConfig) {
  const context = new RequestContext('https://127.0.0.1:6443/api/v1/namespaces', HttpMethod.GET);
  await kc.applySecurityAuthentication(context);
  return context.getDispatcher();
}

describe('PooledKubeConfig', () => {
  it('hands every request the same dispatcher while the TLS material is unchanged', async () => {
    const kc = pooled({ certData: 'Y2VydA==', keyData: 'a2V5' });
    const first = await dispatcherOf(kc);
    expect(first).toBeDefined();
    expect(await dispatcherOf(kc)).toBe(first);
    expect(await dispatcherOf(kc)).toBe(first);
  });

  it('switches to a new dispatcher when the client certificate changes inline', async () => {
    const kc = pooled({ certData: 'Y2VydA==', keyData: 'a2V5' });
    const first = await dispatcherOf(kc);
    const user = kc.getCurrentUser();
    if (!user) throw new Error('no user');
    Object.assign(user, { certData: 'bmV3LWNlcnQ=' });
    const second = await dispatcherOf(kc);
    expect(second).not.toBe(first);
    expect(await dispatcherOf(kc)).toBe(second);
  });

  it('switches to a new dispatcher when a certificate file is rewritten', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-kubeconfig-'));
    dirs.push(dir);
    const certFile = join(dir, 'client.crt');
    const keyFile = join(dir, 'client.key');
    writeFileSync(certFile, 'cert-1');
    writeFileSync(keyFile, 'key-1');
    const kc = pooled({ certFile, keyFile });
    const first = await dispatcherOf(kc);
    expect(await dispatcherOf(kc)).toBe(first);
    writeFileSync(certFile, 'cert-2');
    utimesSync(certFile, new Date(), new Date(Date.now() + 5_000));
    expect(await dispatcherOf(kc)).not.toBe(first);
  });

  it('keeps separate configurations apart', async () => {
    const a = pooled({ certData: 'Y2VydA==', keyData: 'a2V5' });
    const b = pooled({ certData: 'Y2VydA==', keyData: 'a2V5' });
    expect(await dispatcherOf(a)).not.toBe(await dispatcherOf(b));
  });
});
