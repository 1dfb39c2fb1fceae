// Public surface of the service API client. Everything outside src/client imports from here.
export { createServiceClient, type ServiceClient, type ServiceClientOptions } from './service-client.ts';
export {
  staticToken,
  universalAuth,
  type Authenticator,
  type AuthContext,
  type AuthProvider,
  type UniversalAuthOptions,
} from './auth.ts';
export { jwtLogin, type JwtLoginOptions, type JwtSupplier } from './jwt-login-auth.ts';
export { jwtLoginMethods } from './auth-tokens.ts';
export {
  ApprovalRequiredError,
  AlreadyExistsError,
  DeletionBlockedError,
  ForbiddenError,
  InvalidError,
  isTransientServiceError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  RequestValidationError,
  ResponseValidationError,
  ServerError,
  ServiceError,
  TimeoutError,
  UnauthorizedError,
  type ServiceErrorInit,
  type ValidationIssue,
} from './errors.ts';
export {
  isDeletionBlocked,
  isInvalid,
  isNotFound,
  isRefusal,
  serviceErrorKind,
  unlessNotFound,
  type ServiceErrorKind,
} from './error-kinds.ts';
export { serviceErrorFor } from './classify.ts';
export {
  isAlreadyBootstrapped,
  isFolderNotFound,
  isMethodNotAttached,
  isSecretSyncRefusal,
} from './refusals.ts';
export type { CallOptions, ClientLogger, HttpMethod, RequestInfo } from './http.ts';
export { defaultRetryPolicy, type RetryOptions } from './retry-policy.ts';
export { systemClock, type Clock } from '../runtime/clock.ts';
export { BucketRateLimiter, type RateLimitOptions, type RateLimiter } from './rate-limiter.ts';
export { defaultTransportRegistry, TransportRegistry, type TlsOptions } from './transport.ts';
export { SseParser, type SseFrame } from './sse.ts';

export type { AdminApi, BootstrapInput, BootstrapResult } from './admin.ts';
export type {
  AccessToken,
  AuthTokensApi,
  JwtLoginInput,
  JwtLoginMethod,
  UniversalAuthLoginInput,
} from './auth-tokens.ts';
export type {
  CreateEnvironmentInput,
  Environment,
  EnvironmentsApi,
  UpdateEnvironmentInput,
} from './environments.ts';
export {
  parseSecretEvent,
  type EventsApi,
  type EventSubscription,
  type SecretChange,
  type SecretEvent,
  type SubscribeInput,
  type SubscribeOptions,
} from './events.ts';
export type {
  CreateFolderInput,
  CreateFolderV1Input,
  DeleteFolderInput,
  DeleteFolderV1Input,
  Folder,
  FolderOps,
  FoldersApi,
  ListFoldersQuery,
  ListFoldersV1Query,
} from './folders.ts';
export type {
  CreateIdentityInput,
  IdentitiesApi,
  Identity,
  IdentityDetails,
  UpdateIdentityInput,
} from './identities.ts';
export type * from './identity-auth.ts';
export type {
  CreateIntegrationAuthInput,
  CreateIntegrationInput,
  Integration,
  IntegrationAuth,
  IntegrationAuthApi,
  IntegrationsApi,
  UpdateIntegrationInput,
} from './integrations.ts';
export type {
  IdentityMembership,
  ListMembershipsQuery,
  MembershipPage,
  MembershipRole,
  MembershipRoleInput,
  MembershipRolesInput,
  MembershipsApi,
} from './memberships.ts';
export type { CaCertificate, CertificateAuthority, CreateCaInput, PkiApi, UpdateCaInput } from './pki.ts';
export type {
  CreatePrivilegeInput,
  DeletePrivilegeV1Input,
  Privilege,
  PrivilegeScopeById,
  PrivilegeScopeBySlug,
  PrivilegesApi,
  PrivilegesV1Api,
  UpdatePrivilegeInput,
  UpdatePrivilegeV1Input,
} from './privileges.ts';
export type {
  CreateDynamicSecretInput,
  DeleteDynamicSecretInput,
  DynamicSecret,
  DynamicSecretScope,
  DynamicSecretsApi,
  UpdateDynamicSecretInput,
} from './dynamic-secrets.ts';
export type {
  CreateProjectTemplateInput,
  ProjectTemplate,
  ProjectTemplatesApi,
  UpdateProjectTemplateInput,
} from './project-templates.ts';
export type { CreateProjectInput, Project, ProjectsApi, UpdateProjectInput } from './projects.ts';
export {
  PREDEFINED_ROLE_SLUGS,
  type CreateRoleInput,
  type Role,
  type RolesApi,
  type UpdateRoleInput,
} from './roles.ts';
export type { PermissionRule, PermissionRuleInput, TemporaryAccessInput } from './schemas.ts';
export type * from './secrets.ts';
export type {
  CreateAccessTokenInput,
  CreatedAccessToken,
  ListAccessTokensQuery,
  TokenAuthTokensApi,
  TokenData,
} from './token-auth-tokens.ts';
export type {
  ClientSecretData,
  CreateClientSecretInput,
  CreatedClientSecret,
  UniversalAuthSecretsApi,
} from './universal-auth-secrets.ts';
export type {
  DynamicSecretLeasesApi,
  IssuedLease,
  IssueLeaseInput,
  Lease,
  LeaseScope,
} from './dynamic-secret-leases.ts';
