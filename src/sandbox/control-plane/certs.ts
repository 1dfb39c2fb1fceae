/**
 * Fresh PKI for a throw-away control plane: a CA, a serving certificate for loopback, client
 * certificates for users (CN = user, O = groups, as Kubernetes reads them) and a service-account
 * signing key. ECDSA P-256 keeps generation in the milliseconds.
 */
// The Reflect metadata shim must be evaluated before @peculiar/x509 (tsyringe checks on load).
import '../../devserver/domain/reflect-metadata.ts';
import { generateKeyPairSync, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const hour = 3_600_000;

/** A PEM certificate and its PKCS#8 PEM private key. */
export interface PemPair {
  readonly certPem: string;
  readonly keyPem: string;
}

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

async function newKeys(): Promise<webcrypto.CryptoKeyPair> {
  return await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
}

async function keyPem(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

function validity(): { notBefore: Date; notAfter: Date } {
  // Back-dated an hour against clock skew; valid a week, longer than any test run.
  return { notBefore: new Date(Date.now() - hour), notAfter: new Date(Date.now() + 7 * 24 * hour) };
}

/** Creates a self-signed CA that can sign serving and client certificates. */
export async function createCertificateAuthority(commonName: string): Promise<PemPair> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: [commonName] }],
    keys,
    signingAlgorithm: algorithm,
    ...validity(),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}

interface LeafOptions {
  readonly subject: x509.JsonName;
  readonly usage: x509.ExtendedKeyUsage;
  readonly altNames?: x509.JsonGeneralNames;
}

async function issue(ca: PemPair, options: LeafOptions): Promise<PemPair> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey(
    'pkcs8',
    x509.PemConverter.decodeFirst(ca.keyPem),
    algorithm,
    false,
    ['sign'],
  );
  const keys = await newKeys();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(
      x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
      true,
    ),
    new x509.ExtendedKeyUsageExtension([options.usage]),
    await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
  ];
  if (options.altNames) extensions.push(new x509.SubjectAlternativeNameExtension(options.altNames));
  const cert = await x509.X509CertificateGenerator.create({
    subject: options.subject,
    issuer: caCert.subject,
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: algorithm,
    ...validity(),
    extensions,
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}

/**
 * A TLS serving certificate for `localhost` and `127.0.0.1`, plus `extraIps` and `extraNames`,
 * signed by `ca`.
 */
export function issueServingCertificate(
  ca: PemPair,
  extraIps: readonly string[] = [],
  extraNames: readonly string[] = [],
): Promise<PemPair> {
  return issue(ca, {
    subject: [{ CN: ['kube-apiserver'] }],
    usage: x509.ExtendedKeyUsage.serverAuth,
    altNames: [
      { type: 'dns', value: 'localhost' },
      ...extraNames.map((value) => ({ type: 'dns' as const, value })),
      { type: 'ip', value: '127.0.0.1' },
      ...extraIps.map((value) => ({ type: 'ip' as const, value })),
    ],
  });
}

/** A client certificate for `user` in `groups` (CN and O, as the API server's x509 authenticator reads them). */
export function issueClientCertificate(
  ca: PemPair,
  user: string,
  groups: readonly string[],
): Promise<PemPair> {
  const subject: x509.JsonName = [{ CN: [user] }, ...groups.map((group) => ({ O: [group] }))];
  return issue(ca, { subject, usage: x509.ExtendedKeyUsage.clientAuth });
}

/** The key pair that signs (private, PKCS#8) and verifies (public, SPKI) service-account tokens. */
export interface ServiceAccountKey {
  readonly privateKeyPem: string;
  readonly publicKeyPem: string;
}

/** A fresh EC P-256 key pair for `--service-account-signing-key-file` / `--service-account-key-file`. */
export function createServiceAccountKey(): ServiceAccountKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
