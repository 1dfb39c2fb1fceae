/**
 * TLS-certificate login (`POST /api/v1/auth/tls-cert-auth/login`, body `{identityId}`): the client
 * certificate arrives as the service receives it from its TLS terminator, URL-encoded PEM (a chain;
 * the first certificate is the leaf) in the `x-identity-tls-cert-auth-client-cert` header. As the
 * service (identity-tls-cert-auth-router.ts / -service.ts): no header → 400 "Missing TLS
 * certificate in header"; method not attached → 404; no certificate in the header → 400; not
 * signed by the configured CA, expired or not yet valid (on the devserver clock) → 401; CN not in
 * `allowedCommonNames` (exact, comma-separated) → 401. No lockout (the service has none here).
 */
import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import type { DevApp } from '../../app.ts';
import { issueAccessToken, tokenResponse } from '../access-tokens.ts';
import { badRequest, notFound, unauthorized } from '../../domain/errors.ts';
import type { RouteDef } from '../../http/types.ts';
import { configString } from './common-fields.ts';

/** The header the service reads the client certificate from (its default configuration). */
export const CLIENT_CERTIFICATE_HEADER = 'x-identity-tls-cert-auth-client-cert';

const loginSchema = z.object({
  identityId: z.string().trim().min(1),
  subOrganizationName: z.string().optional(),
});

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

function leafOf(header: string): X509Certificate {
  let decoded: string;
  try {
    decoded = decodeURIComponent(header);
  } catch {
    throw badRequest('Missing client certificate');
  }
  const pem = PEM_BLOCK.exec(decoded)?.[0];
  if (!pem) throw badRequest('Missing client certificate');
  try {
    return new X509Certificate(pem);
  } catch {
    throw badRequest('Missing client certificate');
  }
}

function commonNameOf(cert: X509Certificate): string {
  for (const line of cert.subject.split('\n')) {
    const [key, value] = line.split('=');
    if (key?.trim() === 'CN') return value?.trim() ?? '';
  }
  return '';
}

function checkCertificate(app: DevApp, config: Record<string, unknown>, cert: X509Certificate): void {
  const ca = new X509Certificate(configString(config, 'caCertificate'));
  if (!cert.verify(ca.publicKey)) {
    throw unauthorized('Access denied: Certificate not issued by the provided CA.');
  }
  const now = app.now();
  if (Date.parse(cert.validTo) < now) throw unauthorized('Access denied: Certificate has expired.');
  if (Date.parse(cert.validFrom) > now) throw unauthorized('Access denied: Certificate not yet valid.');
  const allowed = configString(config, 'allowedCommonNames');
  if (allowed && !allowed.split(',').includes(commonNameOf(cert))) {
    throw unauthorized('Access denied: TLS Certificate Auth common name not allowed.');
  }
}

function login(app: DevApp, body: unknown, header: string | string[] | undefined): unknown {
  const certificateHeader = Array.isArray(header) ? header[0] : header;
  if (!certificateHeader) throw badRequest('Missing TLS certificate in header');
  const input = loginSchema.parse(body ?? {});
  const record = Object.values(app.state.authMethods).find(
    (m) => m.identityId === input.identityId && m.method === 'tls-cert-auth',
  );
  if (!record) {
    throw notFound(
      'TLS Certificate auth method not found for identity, did you configure TLS Certificate auth?',
    );
  }
  const identity = app.state.identities[record.identityId];
  if (!identity) throw unauthorized('Identity not found');
  checkCertificate(app, record.config, leafOf(certificateHeader));
  identity.lastLoginAuthMethod = 'tls-cert-auth';
  identity.lastLoginTime = app.iso();
  const { record: token, jwt } = issueAccessToken(app, record);
  return tokenResponse(token, jwt);
}

/** The TLS-certificate login route. */
export function tlsCertLoginRoutes(app: DevApp): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/auth/tls-cert-auth/login',
      bucket: 'write',
      auth: false,
      write: false,
      handler: (ctx) => login(app, ctx.body, ctx.headers[CLIENT_CERTIFICATE_HEADER]),
    },
  ];
}
