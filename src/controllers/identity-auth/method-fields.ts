/**
 * Per-method mapping of IdentityAuth: the request body (the same full desired state for attach
 * and PATCH, so a PATCH never relies on the service keeping omitted fields — AWS would reset its
 * lists) and the names of the fields where the service's configuration differs from the spec.
 *
 * The common access-token fields live here too. `token.accessTokenPeriod` is not sent: the
 * service's token-auth endpoints do not accept it.
 */
import { awsMethod, universalMethod, type IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import type { AwsAuth, JwtAuth, OidcAuth, TlsCertAuth, UniversalAuth } from '../../client/index.ts';
import type { ClusterMaterial } from './cluster-material.ts';
import { joinList, sameClaims, sameList, sameTrustedIps, trustedIps, type ParsedIp } from './lists.ts';

/** Fields every auth configuration has. */
export interface CommonConfig {
  readonly id: string;
  readonly identityId: string;
  readonly accessTokenTTL: number;
  readonly accessTokenMaxTTL: number;
  readonly accessTokenNumUsesLimit: number;
  readonly accessTokenTrustedIps: readonly ParsedIp[];
}

/** Names of the fields in `pairs` whose values differ. */
function differing(pairs: Readonly<Record<string, boolean>>): string[] {
  return Object.entries(pairs).flatMap(([name, same]) => (same ? [] : [name]));
}

/** The common access-token fields of the request. */
export function commonBody(spec: IdentityAuthSpec) {
  return {
    accessTokenTTL: spec.accessTokenTTL,
    accessTokenMaxTTL: spec.accessTokenMaxTTL,
    accessTokenNumUsesLimit: spec.accessTokenNumUsesLimit,
    accessTokenTrustedIps: trustedIps(spec.accessTokenTrustedIps),
  };
}

/** Drift of the common fields. */
export function commonDrift(spec: IdentityAuthSpec, config: CommonConfig): string[] {
  return differing({
    accessTokenTTL: config.accessTokenTTL === spec.accessTokenTTL,
    accessTokenMaxTTL: config.accessTokenMaxTTL === spec.accessTokenMaxTTL,
    accessTokenNumUsesLimit: config.accessTokenNumUsesLimit === spec.accessTokenNumUsesLimit,
    accessTokenTrustedIps: sameTrustedIps(spec.accessTokenTrustedIps, config.accessTokenTrustedIps),
  });
}

/** An optional service field equals the spec when the service does not report it. */
const sameIfReported = <T>(service: T | null | undefined, spec: T): boolean =>
  service === undefined || service === null || service === spec;

const text = (value: string | null | undefined): string => (value ?? '').trim();

// --- universal auth ---

const universalBlock = (spec: IdentityAuthSpec) => spec.universal ?? universalMethod.parse({});

export function universalBody(spec: IdentityAuthSpec) {
  const u = universalBlock(spec);
  return {
    ...commonBody(spec),
    clientSecretTrustedIps: trustedIps(u.clientSecretTrustedIps),
    accessTokenPeriod: u.accessTokenPeriod ?? 0,
    lockoutEnabled: u.lockoutEnabled,
    lockoutThreshold: u.lockoutThreshold,
    lockoutDurationSeconds: u.lockoutDurationSeconds,
    lockoutCounterResetSeconds: u.lockoutCounterResetSeconds,
  };
}

export function universalDrift(spec: IdentityAuthSpec, config: UniversalAuth): string[] {
  const u = universalBlock(spec);
  return differing({
    clientSecretTrustedIps: sameTrustedIps(u.clientSecretTrustedIps, config.clientSecretTrustedIps),
    accessTokenPeriod: (config.accessTokenPeriod ?? 0) === (u.accessTokenPeriod ?? 0),
    lockoutEnabled: sameIfReported(config.lockoutEnabled, u.lockoutEnabled),
    lockoutThreshold: sameIfReported(config.lockoutThreshold, u.lockoutThreshold),
    lockoutDurationSeconds: sameIfReported(config.lockoutDurationSeconds, u.lockoutDurationSeconds),
    lockoutCounterResetSeconds: sameIfReported(
      config.lockoutCounterResetSeconds,
      u.lockoutCounterResetSeconds,
    ),
  });
}

// --- AWS auth ---

const awsBlock = (spec: IdentityAuthSpec) => spec.aws ?? awsMethod.parse({});

export function awsBody(spec: IdentityAuthSpec) {
  const a = awsBlock(spec);
  return {
    ...commonBody(spec),
    stsEndpoint: a.stsEndpoint,
    allowedPrincipalArns: joinList(a.allowedPrincipalArns),
    allowedAccountIds: joinList(a.allowedAccountIds),
    accessTokenPeriod: a.accessTokenPeriod ?? 0,
  };
}

export function awsDrift(spec: IdentityAuthSpec, config: AwsAuth): string[] {
  const a = awsBlock(spec);
  return differing({
    stsEndpoint: text(config.stsEndpoint) === a.stsEndpoint,
    allowedPrincipalArns: sameList(a.allowedPrincipalArns, config.allowedPrincipalArns),
    allowedAccountIds: sameList(a.allowedAccountIds, config.allowedAccountIds),
    accessTokenPeriod: (config.accessTokenPeriod ?? 0) === (a.accessTokenPeriod ?? 0),
  });
}

// --- TLS certificate auth ---

function tlsBlock(spec: IdentityAuthSpec) {
  if (!spec.tlsCert) throw new Error('cannot map tlsCert auth: spec.tlsCert is missing');
  return spec.tlsCert;
}

export function tlsCertBody(spec: IdentityAuthSpec) {
  const t = tlsBlock(spec);
  return {
    ...commonBody(spec),
    caCertificate: t.caCertificate,
    // The service refuses an empty string (at least 1 character); null clears the list.
    allowedCommonNames: t.allowedCommonNames?.length ? joinList(t.allowedCommonNames) : null,
  };
}

export function tlsCertDrift(spec: IdentityAuthSpec, config: TlsCertAuth): string[] {
  const t = tlsBlock(spec);
  return differing({
    caCertificate: text(config.caCertificate) === t.caCertificate.trim(),
    allowedCommonNames: sameList(t.allowedCommonNames, config.allowedCommonNames),
  });
}

// --- token auth ---

/** Token auth has only the common fields (its block's `accessTokenPeriod` is not sent). */
export const tokenBody = commonBody;

// --- JWT and OIDC auth ---

/**
 * The JWT block as sent: with `clusterIssuer`, the cluster's keys and issuer (read by
 * `cluster-material.ts`) stand in for `publicKeys` and `boundIssuer`.
 */
export function jwtBlock(spec: IdentityAuthSpec, material: ClusterMaterial = {}) {
  if (!spec.jwt) throw new Error('cannot map jwt auth: spec.jwt is missing');
  if (!spec.jwt.clusterIssuer) return spec.jwt;
  const issuer = material.clusterIssuer;
  if (!issuer) throw new Error('cannot map jwt auth: the cluster issuer was not read');
  return { ...spec.jwt, publicKeys: [...issuer.publicKeys], boundIssuer: issuer.issuer };
}

export function jwtBody(spec: IdentityAuthSpec, material: ClusterMaterial = {}) {
  const j = jwtBlock(spec, material);
  const claims = {
    ...commonBody(spec),
    boundIssuer: j.boundIssuer ?? '',
    boundAudiences: joinList(j.boundAudiences),
    boundClaims: { ...(j.boundClaims ?? {}) },
    boundSubject: j.boundSubject ?? '',
    accessTokenPeriod: j.accessTokenPeriod ?? 0,
  };
  return j.configurationType === 'jwks'
    ? {
        ...claims,
        configurationType: 'jwks' as const,
        jwksUrl: j.jwksUrl ?? '',
        jwksCaCert: j.jwksCaCert ?? '',
      }
    : { ...claims, configurationType: 'static' as const, publicKeys: [...(j.publicKeys ?? [])] };
}

export function jwtDrift(spec: IdentityAuthSpec, material: ClusterMaterial, config: JwtAuth): string[] {
  const j = jwtBlock(spec, material);
  return differing({
    configurationType: config.configurationType === j.configurationType,
    jwksUrl: j.configurationType !== 'jwks' || text(config.jwksUrl) === (j.jwksUrl ?? ''),
    boundIssuer: text(config.boundIssuer) === (j.boundIssuer ?? '').trim(),
    boundAudiences: sameList(j.boundAudiences, config.boundAudiences),
    boundClaims: sameClaims(j.boundClaims, config.boundClaims),
    boundSubject: text(config.boundSubject) === (j.boundSubject ?? '').trim(),
    accessTokenPeriod: (config.accessTokenPeriod ?? 0) === (j.accessTokenPeriod ?? 0),
  });
}

function oidcBlock(spec: IdentityAuthSpec) {
  if (!spec.oidc) throw new Error('cannot map oidc auth: spec.oidc is missing');
  return spec.oidc;
}

export function oidcBody(spec: IdentityAuthSpec) {
  const o = oidcBlock(spec);
  return {
    ...commonBody(spec),
    oidcDiscoveryUrl: o.oidcDiscoveryUrl,
    boundIssuer: o.boundIssuer,
    boundAudiences: joinList(o.boundAudiences),
    boundClaims: { ...(o.boundClaims ?? {}) },
    claimMetadataMapping: { ...(o.claimMetadataMapping ?? {}) },
    boundSubject: o.boundSubject ?? '',
    caCert: o.caCert ?? '',
  };
}

function sameMap(spec: Readonly<Record<string, string>> | undefined, service: unknown): boolean {
  const left = Object.entries(spec ?? {}).sort();
  const right = Object.entries((service ?? {}) as Record<string, unknown>).sort();
  return JSON.stringify(left) === JSON.stringify(right);
}

export function oidcDrift(spec: IdentityAuthSpec, config: OidcAuth): string[] {
  const o = oidcBlock(spec);
  return differing({
    oidcDiscoveryUrl: config.oidcDiscoveryUrl === o.oidcDiscoveryUrl,
    boundIssuer: text(config.boundIssuer) === o.boundIssuer.trim(),
    boundAudiences: sameList(o.boundAudiences, config.boundAudiences),
    boundClaims: sameClaims(o.boundClaims, config.boundClaims),
    claimMetadataMapping: sameMap(o.claimMetadataMapping, config.claimMetadataMapping),
    boundSubject: text(config.boundSubject) === (o.boundSubject ?? '').trim(),
    caCert: text(config.caCert) === (o.caCert ?? '').trim(),
  });
}
