/**
 * Real certificate authorities for the devserver's deprecated `/api/v1/pki/ca` endpoints,
 * generated with `@peculiar/x509` over Node's WebCrypto:
 *
 * - key algorithms `RSA_2048`, `RSA_3072`, `RSA_4096` (RSASSA-PKCS1-v1_5, SHA-256) and
 *   `EC_prime256v1`, `EC_secp384r1`, `EC_secp521r1` (ECDSA with SHA-256/384/512);
 * - the subject is built from country, province, locality, organization, ou and common name
 *   (empty parts left out; at least one must be set);
 * - a `root` CA gets a self-signed certificate (basicConstraints CA, critical; pathLen from
 *   `maxPathLength`, none when -1; keyUsage keyCertSign/cRLSign/digitalSignature; subject and
 *   authority key identifiers) and status `active`; an `intermediate` CA gets a key pair and a
 *   CSR and waits in `pending-certificate`;
 * - `dn`, `serialNumber` (hex), `notBefore` and `notAfter` are read back from the certificate
 *   (or CSR); validity defaults to now .. now + 10 years.
 *
 * The result is plain JSON-serialisable data; `privateKeyPem` (PKCS#8) must never be returned
 * by an endpoint or logged.
 */
import { webcrypto } from 'node:crypto';
import * as x509 from '../../x509.ts';
import { badRequest } from './errors.ts';

type CryptoKeyPair = webcrypto.CryptoKeyPair;
type SigningAlgorithm = webcrypto.Algorithm | webcrypto.EcdsaParams;

export const CA_KEY_ALGORITHMS = [
  'RSA_2048',
  'RSA_3072',
  'RSA_4096',
  'EC_prime256v1',
  'EC_secp384r1',
  'EC_secp521r1',
] as const;
export type CaKeyAlgorithm = (typeof CA_KEY_ALGORITHMS)[number];

interface AlgorithmSpec {
  generate: webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams;
  signing: SigningAlgorithm;
}

const RSA_EXPONENT = new Uint8Array([1, 0, 1]);
const rsa = (modulusLength: number): AlgorithmSpec => ({
  generate: { name: 'RSASSA-PKCS1-v1_5', modulusLength, publicExponent: RSA_EXPONENT, hash: 'SHA-256' },
  signing: { name: 'RSASSA-PKCS1-v1_5' },
});
const ec = (namedCurve: string, hash: string): AlgorithmSpec => ({
  generate: { name: 'ECDSA', namedCurve },
  signing: { name: 'ECDSA', hash },
});

const ALGORITHMS: Readonly<Record<CaKeyAlgorithm, AlgorithmSpec>> = {
  RSA_2048: rsa(2048),
  RSA_3072: rsa(3072),
  RSA_4096: rsa(4096),
  EC_prime256v1: ec('P-256', 'SHA-256'),
  EC_secp384r1: ec('P-384', 'SHA-384'),
  EC_secp521r1: ec('P-521', 'SHA-512'),
};

/** Subject fields as the CA create request carries them (each may be ""). */
export interface CaSubject {
  commonName?: string | undefined;
  organization?: string | undefined;
  ou?: string | undefined;
  country?: string | undefined;
  province?: string | undefined;
  locality?: string | undefined;
}

export interface CreateCaInput extends CaSubject {
  type: 'root' | 'intermediate';
  keyAlgorithm?: CaKeyAlgorithm | undefined;
  /** Any string `new Date()` parses; default now. */
  notBefore?: string | undefined;
  /** Any string `new Date()` parses; default notBefore + 10 years. */
  notAfter?: string | undefined;
  /** ≥ -1; -1 (default) means no path-length constraint. */
  maxPathLength?: number | undefined;
}

/** The generated CA material (persist as is; never expose `privateKeyPem`). */
export interface CaMaterial {
  type: 'root' | 'intermediate';
  status: 'active' | 'pending-certificate';
  keyAlgorithm: CaKeyAlgorithm;
  maxPathLength: number;
  dn: string;
  serialNumber: string | null;
  notBefore: string | null;
  notAfter: string | null;
  /** PEM certificate (root CAs). */
  certificate: string | null;
  /** PEM chain above the certificate; empty for a self-signed root. */
  certificateChain: string;
  /** PEM CSR (intermediate CAs waiting for a certificate). */
  csr: string | null;
  /** PKCS#8 PEM private key. */
  privateKeyPem: string;
  publicKeyPem: string;
}

function subjectName(subject: CaSubject): x509.JsonName {
  const parts: Array<[string, string | undefined]> = [
    ['C', subject.country],
    ['ST', subject.province],
    ['L', subject.locality],
    ['O', subject.organization],
    ['OU', subject.ou],
    ['CN', subject.commonName],
  ];
  const name = parts
    .map(([type, value]) => [type, value?.trim() ?? ''] as const)
    .filter(([, value]) => value !== '')
    .map(([type, value]) => ({ [type]: [value] }));
  if (name.length === 0) {
    throw badRequest(
      'At least one of commonName, organization, ou, country, province or locality must be set',
    );
  }
  return name;
}

function parseDate(text: string | undefined, fallback: Date, field: string): Date {
  if (text === undefined || text === '') return fallback;
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw badRequest(`Invalid ${field} date`);
  return date;
}

/** Dates rounded down to whole seconds (certificates carry no milliseconds). */
function validity(input: CreateCaInput, now: Date): { notBefore: Date; notAfter: Date } {
  const notBefore = parseDate(input.notBefore, now, 'notBefore');
  const tenYearsLater = new Date(notBefore.getTime());
  tenYearsLater.setUTCFullYear(tenYearsLater.getUTCFullYear() + 10);
  const notAfter = parseDate(input.notAfter, tenYearsLater, 'notAfter');
  if (notAfter.getTime() <= notBefore.getTime()) throw badRequest('notAfter must be after notBefore');
  const whole = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);
  return { notBefore: whole(notBefore), notAfter: whole(notAfter) };
}

/** A positive 16-byte serial number in hex. */
function newSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return Buffer.from(bytes).toString('hex');
}

async function exportKeys(keys: CryptoKeyPair): Promise<{ privateKeyPem: string; publicKeyPem: string }> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const spki = await webcrypto.subtle.exportKey('spki', keys.publicKey);
  return {
    privateKeyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
    publicKeyPem: x509.PemConverter.encode(spki, 'PUBLIC KEY'),
  };
}

async function caExtensions(keys: CryptoKeyPair, maxPathLength: number): Promise<x509.Extension[]> {
  const usages =
    x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature;
  return [
    new x509.BasicConstraintsExtension(true, maxPathLength >= 0 ? maxPathLength : undefined, true),
    new x509.KeyUsagesExtension(usages, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
  ];
}

/**
 * Generates a CA: a key pair of `keyAlgorithm` (default RSA_2048) and either a self-signed
 * certificate (`root`) or a CSR (`intermediate`). Throws 400 for a bad subject, algorithm,
 * date or path length.
 */
export async function createCa(input: CreateCaInput, now: Date = new Date()): Promise<CaMaterial> {
  const keyAlgorithm = input.keyAlgorithm ?? 'RSA_2048';
  const spec = ALGORITHMS[keyAlgorithm] as AlgorithmSpec | undefined;
  if (!spec) throw badRequest(`Unsupported key algorithm ${String(keyAlgorithm)}`);
  const maxPathLength = input.maxPathLength ?? -1;
  if (!Number.isInteger(maxPathLength) || maxPathLength < -1)
    throw badRequest('maxPathLength must be -1 or more');
  const name = subjectName(input);
  const dates = validity(input, now);
  const keys = await webcrypto.subtle.generateKey(spec.generate, true, ['sign', 'verify']);
  const exported = await exportKeys(keys);
  const extensions = await caExtensions(keys, maxPathLength);
  const base = { type: input.type, keyAlgorithm, maxPathLength, certificateChain: '', ...exported };
  if (input.type === 'intermediate') {
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name,
      keys,
      signingAlgorithm: spec.signing,
      extensions: extensions.slice(0, 3),
    });
    const pending = { serialNumber: null, notBefore: null, notAfter: null, certificate: null };
    return { ...base, ...pending, status: 'pending-certificate', dn: csr.subject, csr: csr.toString('pem') };
  }
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: newSerial(),
    name,
    ...dates,
    keys,
    signingAlgorithm: spec.signing,
    extensions,
  });
  return { ...base, status: 'active', csr: null, ...describeCertificate(certificate) };
}

function describeCertificate(certificate: x509.X509Certificate) {
  return {
    dn: certificate.subject,
    serialNumber: certificate.serialNumber,
    notBefore: certificate.notBefore.toISOString(),
    notAfter: certificate.notAfter.toISOString(),
    certificate: certificate.toString('pem'),
  };
}

/**
 * Re-issues a root CA's certificate with the same key and subject and a new serial, valid from
 * now until `notAfter` (the "existing key" renewal). 400 unless the CA is an active root.
 */
export async function renewRootCa(
  material: CaMaterial,
  notAfter: string,
  now: Date = new Date(),
): Promise<CaMaterial> {
  if (material.type !== 'root' || material.status !== 'active' || !material.certificate) {
    throw badRequest('Only an active root CA can be renewed');
  }
  const spec = ALGORITHMS[material.keyAlgorithm];
  const dates = validity({ type: 'root', notAfter }, now);
  const importAlgorithm =
    spec.generate.name === 'ECDSA' ? spec.generate : { name: spec.generate.name, hash: 'SHA-256' };
  const decode = (pem: string) => x509.PemConverter.decodeFirst(pem);
  const subtle = webcrypto.subtle;
  const keys: CryptoKeyPair = {
    privateKey: await subtle.importKey('pkcs8', decode(material.privateKeyPem), importAlgorithm, false, [
      'sign',
    ]),
    publicKey: await subtle.importKey('spki', decode(material.publicKeyPem), importAlgorithm, true, [
      'verify',
    ]),
  };
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: newSerial(),
    name: new x509.X509Certificate(material.certificate).subjectName,
    ...dates,
    keys,
    signingAlgorithm: spec.signing,
    extensions: await caExtensions(keys, material.maxPathLength),
  });
  return { ...material, ...describeCertificate(certificate) };
}

/** DER bytes of a PEM certificate (for `…/der`, served as application/pkix-cert). */
export function certificateDer(pem: string): Buffer {
  return Buffer.from(new x509.X509Certificate(pem).rawData);
}

/** True when `pem` parses as an X.509 certificate (TLS-cert auth's "Invalid CA Certificate."). */
export function isCertificatePem(pem: string): boolean {
  try {
    new x509.X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}
