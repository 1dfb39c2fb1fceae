// A local HTTPS OIDC discovery fixture for the run's kube-apiserver: it serves a discovery document
// naming the API server's issuer and a `jwks_uri` on itself, which relays the API server's
// `/openid/v1/jwks`. Its certificate is signed by the control plane's CA, so a caller trusting
// that CA (the devserver's OIDC auth with `caCert`) can fetch both.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, fetch } from 'undici';
import { issueServingCertificate } from '../../src/sandbox/control-plane/certs.ts';
import type { TestCluster } from './control-plane-cluster.ts';

/** A running fixture: its base URL (the `oidcDiscoveryUrl`) and how to stop it. */
export interface OidcFixture {
  readonly url: string;
  close(): void;
}

/** Starts the fixture on a free loopback port; `issuer` goes into the discovery document. */
export async function startOidcFixture(cluster: TestCluster, issuer: string): Promise<OidcFixture> {
  const ca = readFileSync(cluster.info.caCertPath, 'utf8');
  const serving = await issueServingCertificate({
    certPem: ca,
    keyPem: readFileSync(cluster.info.caKeyPath, 'utf8'),
  });
  const agent = new Agent({ connect: { ca } });
  let url = '';
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    void (async () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        res.end(JSON.stringify({ issuer, jwks_uri: `${url}/jwks` }));
        return;
      }
      const jwks = await fetch(`${cluster.server}/openid/v1/jwks`, { dispatcher: agent });
      res.end(await jwks.text());
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => server.close() };
}
