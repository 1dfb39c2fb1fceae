/**
 * Files of a local control plane that hold secrets (private keys, kubeconfigs with client
 * certificates): written readable by the owner only.
 */
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { PemPair } from './certs.ts';

/** The cluster name used in every kubeconfig the control plane writes. */
export const clusterName = 'coffer-local';

/** Writes `content` to `path` with mode 0600. */
export function writeSecretFile(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
}

/**
 * Writes a kubeconfig (mode 0600) for `server` that trusts `caPem` and authenticates as `user`
 * with the client certificate `client` (embedded, not referenced); its only context is current.
 */
export function writeKubeconfig(
  path: string,
  server: string,
  caPem: string,
  identity: { readonly user: string; readonly client: PemPair },
): void {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const { user, client } = identity;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: clusterName, cluster: { server, 'certificate-authority-data': b64(caPem) } }],
    users: [
      {
        name: user,
        user: { 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) },
      },
    ],
    contexts: [{ name: clusterName, context: { cluster: clusterName, user } }],
    'current-context': clusterName,
  };
  writeSecretFile(path, stringify(config));
}
