/**
 * CertificateAuthority: a private CA in a project (the service marks these endpoints deprecated).
 * Everything that defines the CA is immutable after creation (only `enabled`,
 * `requireTemplateForIssuance` and `outputSecretName` change); the CA certificate and chain are
 * written to an output Secret.
 */
import { z } from 'zod';
import { goDurationPattern, parseDurationExact } from '../../runtime/duration.ts';
import { managedFields, objectName, projectRef } from './common.ts';
import { defineKind } from './kind.ts';
import { celCountPresent, celImmutableFields, countPresent, withRules } from './schema-helpers.ts';
import { managedStatusFields } from './status.ts';
import { boundedGoDuration, boundedTime, unstorableEnd } from './time-bounds.ts';

/** Key algorithms of CA keys. */
export const caKeyAlgorithms = [
  'RSA_2048',
  'RSA_3072',
  'RSA_4096',
  'EC_prime256v1',
  'EC_secp384r1',
  'EC_secp521r1',
] as const;
export type CaKeyAlgorithm = (typeof caKeyAlgorithms)[number];

const subjectFields = ['commonName', 'organization', 'ou', 'country', 'province', 'locality'] as const;
const immutableFields = [
  'projectRef',
  'type',
  'friendlyName',
  ...subjectFields,
  'notBefore',
  'notAfter',
  'validity',
  'maxPathLength',
  'keyAlgorithm',
] as const;
const endSources = ['notAfter', 'validity'] as const;

/** Longest validity: 100 years. */
export const maxCaValidity = '876000h';

const dnPart = (label: string, max: number) =>
  z.string().max(max).default('').describe(`${label} of the CA's subject. Default: empty.`);

const caFields = z.object({
  ...managedFields('Delete'),
  projectRef,
  type: z
    .enum(['root', 'intermediate'])
    .describe('root: self-signed; intermediate: waits in pending-certificate until signed.'),
  friendlyName: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('Display name. Unset: derived from the subject by the service.'),
  commonName: dnPart('Common name (CN)', 256),
  organization: dnPart('Organization (O)', 256),
  ou: dnPart('Organizational unit (OU)', 256),
  country: dnPart('Country (C, two-letter code)', 2),
  province: dnPart('State or province (ST)', 256),
  locality: dnPart('Locality (L)', 256),
  notBefore: boundedTime(z.iso.datetime({ offset: true }), 'notBefore')
    .optional()
    .describe('Start of validity (RFC 3339, from 1970 on). Unset: now.'),
  notAfter: boundedTime(z.iso.datetime({ offset: true }), 'notAfter')
    .optional()
    .describe(
      'End of validity (RFC 3339), after notBefore. Mutually exclusive with validity. Unset (and no validity): ' +
        'the service default.',
    ),
  validity: boundedGoDuration(
    z.string().max(64).regex(goDurationPattern, 'must be a Go duration such as 87600h'),
    'validity',
    maxCaValidity,
  )
    .optional()
    .describe(
      'Validity as a Go duration from notBefore (or creation), e.g. 87600h (10 years); at most 876000h (100 ' +
        'years). Mutually exclusive with notAfter.',
    ),
  maxPathLength: z
    .int()
    .min(-1)
    .max(64)
    .default(-1)
    .describe('Maximum number of intermediate CAs below this one; -1 means unlimited. Default: -1.'),
  keyAlgorithm: z
    .enum(caKeyAlgorithms)
    .default('RSA_2048')
    .describe(`Key algorithm: ${caKeyAlgorithms.join(', ')}. Default: RSA_2048.`),
  requireTemplateForIssuance: z
    .boolean()
    .default(false)
    .describe('Require a certificate template for every certificate issued by this CA. Default: false.'),
  enabled: z
    .boolean()
    .default(true)
    .describe(
      'Whether the CA is active (true) or disabled (false) in the service. Not applied while an intermediate CA ' +
        'waits for its certificate. Default: true.',
    ),
  outputSecretName: objectName
    .optional()
    .describe(
      'Secret (same namespace) that receives ca.crt: the CA certificate and its chain, PEM. Unset: none.',
    ),
});

export const certificateAuthoritySpec = withRules(caFields, [
  {
    rule: subjectFields.map((f) => `self.${f} != ''`).join(' || '),
    message: 'set at least one of commonName, organization, ou, country, province or locality',
    check: (v) => subjectFields.some((f) => v[f] !== ''),
  },
  {
    rule: `${celCountPresent(endSources)} <= 1`,
    message: 'set at most one of notAfter or validity',
    check: (v) => countPresent(v, endSources) <= 1,
  },
  {
    rule: '!has(self.notBefore) || !has(self.notAfter) || timestamp(self.notBefore) < timestamp(self.notAfter)',
    message: 'notAfter must be after notBefore',
    fieldPath: '.notAfter',
    check: (v) =>
      v.notBefore === undefined ||
      v.notAfter === undefined ||
      Date.parse(v.notBefore) < Date.parse(v.notAfter),
  },
  {
    rule: celImmutableFields(immutableFields),
    message:
      'a CertificateAuthority cannot be changed after creation (projectRef, type, subject, validity, ' +
      'maxPathLength, keyAlgorithm); create a new one instead',
  },
])
  .superRefine((spec, ctx) => {
    if (spec.notBefore === undefined || spec.validity === undefined) return;
    const problem = unstorableEnd(
      Date.parse(spec.notBefore),
      parseDurationExact(spec.validity),
      `validity ${spec.validity} from notBefore ${spec.notBefore}`,
    );
    if (problem) ctx.addIssue({ code: 'custom', path: ['validity'], message: problem });
  })
  .describe(
    'Desired certificate authority. Immutable after creation except enabled, requireTemplateForIssuance, ' +
      'outputSecretName and the operator-facing policies.',
  );
export type CertificateAuthoritySpec = z.output<typeof certificateAuthoritySpec>;

export const certificateAuthorityStatus = z
  .object({
    ...managedStatusFields,
    state: z
      .string()
      .max(64)
      .optional()
      .describe('CA status in the service: active, disabled or pending-certificate.'),
    dn: z.string().max(2048).optional().describe('Distinguished name of the CA.'),
    serialNumber: z.string().max(256).optional().describe('Serial number of the CA certificate.'),
    notBefore: z.string().max(64).optional().describe('Start of validity of the CA certificate.'),
    notAfter: z.string().max(64).optional().describe('End of validity of the CA certificate.'),
    activeCaCertId: z.string().max(256).optional().describe('Id of the active CA certificate.'),
  })
  .describe('Observed state of the CA.');
export type CertificateAuthorityStatus = z.output<typeof certificateAuthorityStatus>;

export const certificateAuthorityKind = defineKind({
  kind: 'CertificateAuthority',
  plural: 'certificateauthorities',
  shortNames: ['cca'],
  scope: 'Namespaced',
  description:
    'A private certificate authority in a Project, with its certificate and chain written to a Secret. ' +
    'Immutable after creation. The service marks the CA endpoints deprecated.',
  spec: certificateAuthoritySpec,
  status: certificateAuthorityStatus,
  columns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type', description: 'root or intermediate.' },
    { name: 'CN', type: 'string', jsonPath: '.spec.commonName', description: 'Common name.' },
    { name: 'State', type: 'string', jsonPath: '.status.state', description: 'CA status in the service.' },
  ],
  defaultDeletionPolicy: 'Delete',
});
