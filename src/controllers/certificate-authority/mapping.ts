/**
 * CertificateAuthority mapping: spec → create request, service CA → status, what may be updated
 * (status active/disabled, requireTemplateForIssuance) and which immutable fields differ (an
 * adopted CA that is not the one the spec describes).
 */
import type { CertificateAuthoritySpec } from '../../api/v1alpha1/index.ts';
import { parseDurationExact } from '../../runtime/duration.ts';
import type {
  CaCertificate,
  CertificateAuthority,
  CreateCaInput,
  UpdateCaInput,
} from '../../client/index.ts';
import type { SecretOutputs } from '../../managed/external-client.ts';

/** Status fields this kind adds. */
export interface CaStatusFields {
  readonly [field: string]: unknown;
  state?: string;
  dn?: string;
  serialNumber?: string;
  notBefore?: string;
  notAfter?: string;
  activeCaCertId?: string;
}

/** The service status of an intermediate CA whose certificate is not signed yet. */
export const PENDING_CERTIFICATE = 'pending-certificate';

/** Key of the output Secret holding the CA certificate and chain (PEM). */
export const CA_CERT_KEY = 'ca.crt';

/** End of validity: `notAfter`, or `validity` after `notBefore` (or `now`). */
function notAfterOf(spec: CertificateAuthoritySpec, now: Date): string | undefined {
  if (spec.notAfter !== undefined) return spec.notAfter;
  if (spec.validity === undefined) return undefined;
  const start = spec.notBefore === undefined ? now.getTime() : Date.parse(spec.notBefore);
  return new Date(start + parseDurationExact(spec.validity)).toISOString();
}

/** The `POST /api/v1/pki/ca` body. */
export function createRequest(spec: CertificateAuthoritySpec, projectSlug: string, now: Date): CreateCaInput {
  const notAfter = notAfterOf(spec, now);
  return {
    projectSlug,
    type: spec.type,
    ...(spec.friendlyName === undefined ? {} : { friendlyName: spec.friendlyName }),
    commonName: spec.commonName,
    organization: spec.organization,
    ou: spec.ou,
    country: spec.country,
    province: spec.province,
    locality: spec.locality,
    ...(spec.notBefore === undefined ? {} : { notBefore: spec.notBefore }),
    ...(notAfter === undefined ? {} : { notAfter }),
    maxPathLength: spec.maxPathLength,
    keyAlgorithm: spec.keyAlgorithm,
    requireTemplateForIssuance: spec.requireTemplateForIssuance,
  };
}

/** The PATCH body that makes `ca` match the spec; empty when it already does. */
export function updateRequest(spec: CertificateAuthoritySpec, ca: CertificateAuthority): UpdateCaInput {
  const out: UpdateCaInput = {};
  if ((ca.requireTemplateForIssuance ?? false) !== spec.requireTemplateForIssuance)
    out.requireTemplateForIssuance = spec.requireTemplateForIssuance;
  // A CA without a certificate cannot change status; it becomes active when signed.
  const wanted = spec.enabled ? 'active' : 'disabled';
  if (ca.status !== PENDING_CERTIFICATE && ca.status !== wanted) out.status = wanted;
  return out;
}

/** Names of the update fields that differ, for the `UpdatedExternal` event. */
export function describeUpdate(request: UpdateCaInput): string | undefined {
  const fields = Object.keys(request).map((k) => (k === 'status' ? 'enabled' : k));
  return fields.length > 0 ? fields.join(', ') : undefined;
}

/**
 * Spec fields that cannot change and differ from the service CA (checked when a CA is adopted or
 * observed). Unset optional fields (`friendlyName`) are not compared; validity is not compared
 * because the service derives it.
 */
export function immutableMismatch(spec: CertificateAuthoritySpec, ca: CertificateAuthority): string[] {
  const differs: string[] = [];
  const compare = (field: string, wanted: unknown, actual: unknown) => {
    if (wanted !== actual) differs.push(field);
  };
  compare('type', spec.type, ca.type);
  for (const field of ['commonName', 'organization', 'ou', 'country', 'province', 'locality'] as const)
    compare(field, spec[field], ca[field] ?? '');
  compare('keyAlgorithm', spec.keyAlgorithm, ca.keyAlgorithm);
  compare('maxPathLength', spec.maxPathLength, ca.maxPathLength ?? -1);
  if (spec.friendlyName !== undefined) compare('friendlyName', spec.friendlyName, ca.friendlyName);
  return differs;
}

/** Status fields from the service CA. */
export function statusOf(ca: CertificateAuthority): CaStatusFields {
  const out: CaStatusFields = { state: ca.status };
  if (ca.dn) out.dn = ca.dn;
  if (ca.serialNumber) out.serialNumber = ca.serialNumber;
  if (ca.notBefore) out.notBefore = ca.notBefore;
  if (ca.notAfter) out.notAfter = ca.notAfter;
  if (ca.activeCaCertId) out.activeCaCertId = ca.activeCaCertId;
  return out;
}

/** The certificate followed by its chain (PEM), without repeating the certificate. */
export function caBundle(cert: CaCertificate): string {
  const parts = [cert.certificate, cert.certificateChain]
    .map((pem) => pem.trim())
    .filter((pem, index, all) => pem !== '' && all.indexOf(pem) === index);
  return `${parts.join('\n')}\n`;
}

/** The output Secret (`ca.crt`), when the spec names one and the CA has a certificate. */
export function outputSecret(
  spec: CertificateAuthoritySpec,
  cert: CaCertificate | undefined,
): SecretOutputs | undefined {
  if (!spec.outputSecretName || !cert) return undefined;
  return [{ name: spec.outputSecretName, data: { [CA_CERT_KEY]: caBundle(cert) } }];
}
