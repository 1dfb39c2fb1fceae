/**
 * Records held by the devserver. Every record is plain JSON (timestamps are ISO strings) so
 * the whole state can be persisted with `JSON.stringify` and reloaded as-is.
 */

import type { CaMaterial } from '../domain/pki.ts';
import type { PermissionRule } from '../domain/permission-rules.ts';
import type { TrustedIp } from '../domain/validation.ts';

export type { PermissionRule, TrustedIp };

export interface OrgRecord {
  id: string;
  name: string;
  slug: string;
  createdAt: string;
  updatedAt: string;
}

export interface UserRecord {
  id: string;
  email: string;
  username: string;
  firstName: string;
  lastName: string;
  superAdmin: boolean;
  /** scrypt hash; the password itself is never stored. */
  passwordHash: string;
  createdAt: string;
}

export interface IdentityRecord {
  id: string;
  name: string;
  orgId: string;
  /** Org role slug: `admin`, `member`, `no-access`. */
  role: string;
  /** Id of the identity's org membership (the GET shape is that membership). */
  orgMembershipId: string;
  hasDeleteProtection: boolean;
  metadata: { id: string; key: string; value: string }[];
  lastLoginAuthMethod?: string;
  lastLoginTime?: string;
  createdAt: string;
  updatedAt: string;
}

/** Auth method names as they appear in `identity.authMethods[]`. */
export type AuthMethodName =
  | 'token-auth'
  | 'universal-auth'
  | 'jwt-auth'
  | 'oidc-auth'
  | 'tls-cert-auth'
  | 'aws-auth'
  | 'kubernetes-auth';

/** One attached auth method: the common token fields plus method-specific `config`. */
export interface AuthMethodRecord {
  id: string;
  identityId: string;
  method: AuthMethodName;
  accessTokenTTL: number;
  accessTokenMaxTTL: number;
  accessTokenNumUsesLimit: number;
  accessTokenTrustedIps: TrustedIp[];
  accessTokenPeriod: number;
  config: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface AccessTokenRecord {
  id: string;
  identityId: string;
  authMethod: AuthMethodName;
  name: string | null;
  accessTokenTTL: number;
  accessTokenMaxTTL: number;
  accessTokenNumUses: number;
  accessTokenNumUsesLimit: number;
  accessTokenPeriod: number;
  accessTokenLastUsedAt: string | null;
  accessTokenLastRenewedAt: string | null;
  isAccessTokenRevoked: boolean;
  identityUAClientSecretId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ClientSecretRecord {
  id: string;
  identityId: string;
  identityUAId: string;
  description: string;
  clientSecretPrefix: string;
  /** sha256 of the secret; the secret itself is returned once and never stored. */
  clientSecretHash: string;
  clientSecretNumUses: number;
  clientSecretNumUsesLimit: number;
  clientSecretTTL: number;
  isClientSecretRevoked: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ProjectRecord {
  id: string;
  orgId: string;
  name: string;
  description: string | null;
  type: string;
  defaultProduct: string | null;
  slug: string;
  autoCapitalization: boolean;
  version: number;
  upgradeStatus: string | null;
  pitVersionLimit: number;
  kmsCertificateKeyId: string | null;
  auditLogsRetentionDays: number | null;
  hasDeleteProtection: boolean;
  secretSharing: boolean;
  showSnapshotsLegacy: boolean;
  secretDetectionIgnoreValues: string[];
  createdAt: string;
  updatedAt: string;
}

export interface EnvironmentRecord {
  id: string;
  projectId: string;
  name: string;
  slug: string;
  position: number;
  createdAt: string;
  updatedAt: string;
}

/** A temporary window, present on temporary roles and privileges. */
export interface TemporaryFields {
  isTemporary: boolean;
  temporaryMode: string | null;
  temporaryRange: string | null;
  temporaryAccessStartTime: string | null;
  temporaryAccessEndTime: string | null;
}

export interface MembershipRoleRecord extends TemporaryFields {
  id: string;
  /** A predefined slug, or `custom` with `customRoleId` set. */
  role: string;
  customRoleId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ProjectMembershipRecord {
  id: string;
  projectId: string;
  identityId: string;
  roles: MembershipRoleRecord[];
  createdAt: string;
  updatedAt: string;
}

export interface PrivilegeRecord extends TemporaryFields {
  id: string;
  slug: string;
  projectId: string;
  identityId: string;
  projectMembershipId: string;
  permissions: PermissionRule[];
  createdAt: string;
  updatedAt: string;
}

export interface RoleRecord {
  id: string;
  projectId: string;
  name: string;
  slug: string;
  description: string | null;
  permissions: PermissionRule[];
  createdAt: string;
  updatedAt: string;
}

export interface TemplateRecord {
  id: string;
  orgId: string;
  name: string;
  description: string | null;
  type: string;
  roles: { name: string; slug: string; permissions: PermissionRule[] }[];
  environments: { name: string; slug: string; position: number }[] | null;
  users: { username: string; roles: string[] }[] | null;
  createdAt: string;
  updatedAt: string;
}

export interface IntegrationAuthRecord {
  id: string;
  projectId: string;
  integration: string;
  teamId: string | null;
  url: string | null;
  namespace: string | null;
  accountId: string | null;
  metadata: unknown;
  /** Stored credentials; never part of a response. */
  credentials: {
    accessId?: string;
    accessToken?: string;
    refreshToken?: string;
    awsAssumeIamRoleArn?: string;
  };
  createdAt: string;
  updatedAt: string;
}

export interface IntegrationRecord {
  id: string;
  projectId: string;
  integrationAuthId: string;
  envId: string;
  integration: string;
  isActive: boolean;
  secretPath: string;
  fields: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** A certificate authority; `material` holds the key (never returned) and certificate. */
export interface CaRecord {
  id: string;
  projectId: string;
  status: string;
  name: string;
  friendlyName: string;
  subject: {
    commonName: string;
    organization: string;
    ou: string;
    country: string;
    province: string;
    locality: string;
  };
  requireTemplateForIssuance: boolean;
  /** Cert-manager CAs: certificates only through templates/profiles (absent: false). */
  disableDirectIssuance?: boolean;
  activeCaCertId: string | null;
  material: CaMaterial;
  /** Every certificate the CA has had, oldest first (renewal appends). */
  certificates: {
    id: string;
    certificate: string;
    certificateChain: string;
    serialNumber: string;
    version: number;
  }[];
  createdAt: string;
  updatedAt: string;
}

/**
 * A dynamic secret: a provider configuration in one folder (project, environment, path). `inputs`
 * hold the provider's connection settings (credentials included) as validated at create or update;
 * they are returned only where the service returns them (create, update, get by name).
 */
export interface DynamicSecretRecord {
  id: string;
  name: string;
  version: number;
  type: string;
  defaultTTL: string;
  maxTTL: string | null;
  projectId: string;
  environment: string;
  secretPath: string;
  folderId: string;
  /** `null`, `deleting` or `failed-deletion`. */
  status: string | null;
  statusDetails: string | null;
  usernameTemplate: string | null;
  metadata: { key: string; value: string }[];
  inputs: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** A lease of a dynamic secret; its credentials are returned once, at creation, and never stored. */
export interface DynamicSecretLeaseRecord {
  id: string;
  version: number;
  /** What the provider created: the database role name, or the ServiceAccount name. */
  externalEntityId: string;
  expireAt: string;
  /** `null`, or `failed-deletion` when a revocation failed (with the reason in `statusDetails`). */
  status: string | null;
  statusDetails: string | null;
  dynamicSecretId: string;
  config: unknown;
  createdAt: string;
  updatedAt: string;
}

/** Instance-wide settings. */
export interface InstanceRecord {
  initialized: boolean;
  /** HS256 key for access tokens; persisted so tokens survive a restart with `--data-file`. */
  jwtSecret: string;
  adminIdentityIds: string[];
}

/** Everything except the secret store, keyed by id. */
export interface StateData {
  instance: InstanceRecord;
  orgs: Record<string, OrgRecord>;
  users: Record<string, UserRecord>;
  identities: Record<string, IdentityRecord>;
  authMethods: Record<string, AuthMethodRecord>;
  accessTokens: Record<string, AccessTokenRecord>;
  clientSecrets: Record<string, ClientSecretRecord>;
  projects: Record<string, ProjectRecord>;
  environments: Record<string, EnvironmentRecord>;
  memberships: Record<string, ProjectMembershipRecord>;
  privileges: Record<string, PrivilegeRecord>;
  roles: Record<string, RoleRecord>;
  templates: Record<string, TemplateRecord>;
  integrationAuths: Record<string, IntegrationAuthRecord>;
  integrations: Record<string, IntegrationRecord>;
  cas: Record<string, CaRecord>;
  dynamicSecrets: Record<string, DynamicSecretRecord>;
  dynamicSecretLeases: Record<string, DynamicSecretLeaseRecord>;
}
