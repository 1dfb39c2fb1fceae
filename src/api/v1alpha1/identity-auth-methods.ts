/**
 * The per-method blocks of IdentityAuth (token, jwt, oidc, tlsCert, aws, universal; kubernetes in
 * identity-auth-kubernetes.ts), with the
 * fields and bounds of the service's attach/update endpoints. List-valued fields that the service
 * stores as comma-separated strings (audiences, principals, common names) are lists here; the
 * controller joins them.
 */
import { z } from 'zod';
import { serviceUrl } from './common.ts';
import { clusterIssuer } from './identity-auth-kubernetes.ts';
import { withRules } from './schema-helpers.ts';

export * from './identity-auth-kubernetes.ts';

/** Largest TTL or period the service accepts: ten years, in seconds. */
export const maxTokenSeconds = 315360000;

const pem = (max: number) => z.string().min(1).max(max);
const claimMap = z.record(z.string().min(1).max(256), z.string().max(4096));

/** An IP address or CIDR range, e.g. 10.0.0.0/8 or ::/0 (the service checks it exactly). */
export const ipOrCidr = z
  .string()
  .min(2)
  .max(64)
  .regex(/^[0-9A-Fa-f:.]+(\/[0-9]{1,3})?$/, 'must be an IPv4/IPv6 address or CIDR range such as 10.0.0.0/8');

/** `accessTokenPeriod`: renewable period in seconds (0 = not periodic). */
const accessTokenPeriod = z
  .int()
  .min(0)
  .max(maxTokenSeconds)
  .optional()
  .describe(
    'Period in seconds for periodic tokens: renewing resets the expiry to this period and accessTokenMaxTTL ' +
      'does not apply. 0 or unset: tokens are not periodic.',
  );

const stringList = (itemMax: number, description: string) =>
  z.array(z.string().min(1).max(itemMax)).max(64).optional().describe(description);

export const tokenMethod = z
  .object({ accessTokenPeriod })
  .describe('Settings of token auth (method token). Optional: token auth needs only the common fields.');

export const jwtMethod = withRules(
  z.object({
    configurationType: z
      .enum(['jwks', 'static'])
      .default('static')
      .describe(
        'jwks: keys are fetched from jwksUrl; static: keys are the PEM publicKeys listed here (or read from ' +
          'the cluster with clusterIssuer). Default: static.',
      ),
    clusterIssuer: clusterIssuer.optional(),
    jwksUrl: serviceUrl.optional().describe('JWKS endpoint URL (configurationType jwks).'),
    jwksCaCert: pem(65536)
      .optional()
      .describe('PEM CA certificate for the JWKS endpoint’s TLS (configurationType jwks).'),
    publicKeys: z
      .array(pem(16384))
      .max(16)
      .optional()
      .describe('PEM public keys that sign accepted JWTs (configurationType static; at least one).'),
    boundIssuer: z.string().max(1024).optional().describe('Required iss claim. Unset: any issuer.'),
    boundAudiences: stringList(1024, 'Accepted aud values (any one must match). Unset: any audience.'),
    boundClaims: claimMap
      .optional()
      .describe(
        'Claims that must be present with these values; a value may be a comma-separated list of accepted values.',
      ),
    boundSubject: z.string().max(1024).optional().describe('Required sub claim. Unset: any subject.'),
    accessTokenPeriod,
  }),
  [
    {
      rule:
        "has(self.clusterIssuer) || (self.configurationType == 'jwks' ? has(self.jwksUrl) : " +
        '(has(self.publicKeys) && size(self.publicKeys) > 0))',
      message: 'jwt: configurationType jwks requires jwksUrl; static requires at least one publicKeys entry',
      check: (v) =>
        v.clusterIssuer !== undefined ||
        (v.configurationType === 'jwks' ? v.jwksUrl !== undefined : (v.publicKeys?.length ?? 0) > 0),
    },
    {
      rule:
        "!has(self.clusterIssuer) || (self.configurationType == 'static' && !has(self.jwksUrl) && " +
        '!has(self.jwksCaCert) && !has(self.publicKeys) && !has(self.boundIssuer))',
      message:
        'jwt: with clusterIssuer the keys and issuer come from the cluster; leave configurationType static and ' +
        'jwksUrl, jwksCaCert, publicKeys and boundIssuer unset',
      check: (v) =>
        v.clusterIssuer === undefined ||
        (v.configurationType === 'static' &&
          [v.jwksUrl, v.jwksCaCert, v.publicKeys, v.boundIssuer].every((f) => f === undefined)),
    },
  ],
).describe(
  'Settings of JWT auth (method jwt): how presented JWTs are verified and which claims they must carry.',
);

export const oidcMethod = z
  .object({
    oidcDiscoveryUrl: serviceUrl.describe(
      'OIDC discovery URL of the issuer, e.g. https://token.actions.githubusercontent.com.',
    ),
    boundIssuer: z.string().min(1).max(1024).describe('Required iss claim.'),
    boundAudiences: stringList(1024, 'Accepted aud values (any one must match). Unset: any audience.'),
    boundClaims: claimMap
      .optional()
      .describe(
        'Claims that must be present with these values; a value may be a comma-separated list. Unset: none.',
      ),
    claimMetadataMapping: claimMap
      .optional()
      .describe('Copies token claims into the identity’s metadata: metadata key → claim name.'),
    boundSubject: z.string().max(1024).optional().describe('Required sub claim. Unset: any subject.'),
    caCert: pem(65536).optional().describe('PEM CA certificate for the discovery endpoint’s TLS.'),
  })
  .describe('Settings of OIDC auth (method oidc).');

export const tlsCertMethod = z
  .object({
    caCertificate: pem(10240).describe(
      'PEM CA certificate (at most 10240 characters) that must sign client certificates.',
    ),
    allowedCommonNames: stringList(
      256,
      'Accepted client certificate common names. Unset: any name signed by the CA.',
    ),
  })
  .describe('Settings of TLS certificate auth (method tlsCert).');

export const awsMethod = z
  .object({
    stsEndpoint: serviceUrl
      .default('https://sts.amazonaws.com/')
      .describe('AWS STS endpoint used to verify login requests. Default: https://sts.amazonaws.com/.'),
    allowedPrincipalArns: z
      .array(
        z
          .string()
          .max(2048)
          .regex(
            /^arn:aws:iam::[0-9]{12}:(\*|(user|role)\/\S+)$/,
            'must be an IAM ARN such as arn:aws:iam::123456789012:role/app',
          ),
      )
      .max(64)
      .optional()
      .describe(
        'IAM principal ARNs allowed to log in (* wildcards allowed). Unset: any principal of the allowed accounts.',
      ),
    allowedAccountIds: z
      .array(z.string().regex(/^[0-9]{12}$/, 'must be a 12-digit AWS account id'))
      .max(64)
      .optional()
      .describe('12-digit AWS account ids allowed to log in. Unset: any account.'),
    accessTokenPeriod,
  })
  .describe('Settings of AWS IAM auth (method aws).');

export const universalMethod = z
  .object({
    clientSecretTrustedIps: z
      .array(ipOrCidr)
      .min(1)
      .max(64)
      .default(['0.0.0.0/0', '::/0'])
      .describe(
        'IPs or CIDR ranges allowed to use client secrets. Default: every address (0.0.0.0/0, ::/0).',
      ),
    accessTokenPeriod,
    lockoutEnabled: z
      .boolean()
      .default(true)
      .describe('Lock out a client id after repeated failed logins. Default: true.'),
    lockoutThreshold: z
      .int()
      .min(1)
      .max(30)
      .default(3)
      .describe('Failed logins before lockout (1–30). Default: 3.'),
    lockoutDurationSeconds: z
      .int()
      .min(30)
      .max(86400)
      .default(300)
      .describe('Lockout duration in seconds (30–86400). Default: 300.'),
    lockoutCounterResetSeconds: z
      .int()
      .min(5)
      .max(3600)
      .default(30)
      .describe('Seconds after which the failed-login counter resets (5–3600). Default: 30.'),
  })
  .describe('Settings of universal auth (method universal: client id + client secret). Optional.');
