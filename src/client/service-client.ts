// `createServiceClient`: assembles the transport, authentication and every API area into
// one object. Clients created for the same base URL share one connection pool and one rate
// limiter (through the transport registry), whatever identity they authenticate as.
import type { Dispatcher } from 'undici';
import { adminApi, type AdminApi } from './admin.ts';
import type { Authenticator } from './auth.ts';
import { authTokensApi, type AuthTokensApi } from './auth-tokens.ts';
import { retryPolicy, type RetryOptions } from './retry-policy.ts';
import { systemClock, type Clock } from '../runtime/clock.ts';
import { dynamicSecretsApi, type DynamicSecretsApi } from './dynamic-secrets.ts';
import { dynamicSecretLeasesApi, type DynamicSecretLeasesApi } from './dynamic-secret-leases.ts';
import { environmentsApi, type EnvironmentsApi } from './environments.ts';
import { eventsApi, type EventsApi } from './events.ts';
import { foldersApi, type FoldersApi } from './folders.ts';
import { HttpClient, silentLogger, type ClientLogger, type RequestInfo } from './http.ts';
import { identitiesApi, type IdentitiesApi } from './identities.ts';
import { identityAuthApi, type IdentityAuthApi } from './identity-auth.ts';
import { integrationsApi, type IntegrationsApi } from './integrations.ts';
import { membershipsApi, type MembershipsApi } from './memberships.ts';
import { pkiApi, type PkiApi } from './pki.ts';
import { privilegesApi, type PrivilegesApi } from './privileges.ts';
import { projectTemplatesApi, type ProjectTemplatesApi } from './project-templates.ts';
import { projectsApi, type ProjectsApi } from './projects.ts';
import type { RateLimitOptions } from './rate-limiter.ts';
import { rolesApi, type RolesApi } from './roles.ts';
import { secretsApi, type SecretsApi } from './secrets.ts';
import { tokenAuthTokensApi, type TokenAuthTokensApi } from './token-auth-tokens.ts';
import { defaultTransportRegistry, type TlsOptions, type TransportRegistry } from './transport.ts';
import { universalAuthSecretsApi, type UniversalAuthSecretsApi } from './universal-auth-secrets.ts';

/** Options of `createServiceClient`; only `baseUrl` is required. */
export interface ServiceClientOptions {
  /** e.g. `https://app.infisical.com` or `http://127.0.0.1:8080`; a path prefix is kept. */
  baseUrl: string;
  /** `staticToken(...)` or `universalAuth(...)`; without it requests carry no token. */
  auth?: Authenticator;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Shared by every client of the same base URL; the first client's setting wins. */
  rateLimit?: RateLimitOptions;
  tls?: TlsOptions;
  /** Maximum sockets per base URL (default 16). */
  connections?: number;
  logger?: ClientLogger;
  /** Called after every HTTP attempt (metrics); exceptions from it are logged and ignored. */
  onRequest?: (info: RequestInfo) => void;
  userAgent?: string;
  /** Largest JSON request body to send (default 1 MiB, the service's limit); see `HttpClientOptions`. */
  maxBodyBytes?: number;
  /** Send through this dispatcher (tests: an undici `MockAgent`) instead of a shared Pool. */
  dispatcher?: Dispatcher;
  /** Where Pools and limiters are shared (default: one registry per process). */
  registry?: TransportRegistry;
  /** Injected time source (tests). */
  clock?: Clock;
  /** Injected randomness for backoff jitter (tests). */
  random?: () => number;
}

/** Every API area of the service, plus `close()`. */
export interface ServiceClient {
  readonly baseUrl: string;
  readonly admin: AdminApi;
  /** Login, renew and revoke of access tokens (unauthenticated endpoints). */
  readonly auth: AuthTokensApi;
  readonly dynamicSecrets: DynamicSecretsApi;
  /** Leases of dynamic secrets (issue, get, renew, revoke, list). */
  readonly dynamicSecretLeases: DynamicSecretLeasesApi;
  readonly environments: EnvironmentsApi;
  readonly events: EventsApi;
  readonly folders: FoldersApi;
  readonly identities: IdentitiesApi;
  readonly identityAuth: IdentityAuthApi;
  readonly integrations: IntegrationsApi;
  readonly memberships: MembershipsApi;
  readonly pki: PkiApi;
  readonly privileges: PrivilegesApi;
  readonly projectTemplates: ProjectTemplatesApi;
  readonly projects: ProjectsApi;
  readonly roles: RolesApi;
  readonly secrets: SecretsApi;
  readonly tokenAuthTokens: TokenAuthTokensApi;
  readonly universalAuthSecrets: UniversalAuthSecretsApi;
  /** Ends this client's event streams and releases the shared Pool (closed with its last client). Idempotent. */
  close(): Promise<void>;
}

/** Creates a client; call `close()` when done so the shared Pool can be released. */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const registry = options.registry ?? defaultTransportRegistry;
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError('cannot create service client: timeoutMs must be a positive number');
  }
  const retry = retryPolicy(options.retry);
  const transport = registry.acquire({
    baseUrl: options.baseUrl,
    tls: options.tls,
    connections: options.connections,
    rateLimit: options.rateLimit,
    dispatcher: options.dispatcher,
    clock,
  });
  const common = {
    transport,
    retry,
    timeoutMs,
    clock,
    random: options.random ?? Math.random,
    logger,
    onRequest: options.onRequest,
    userAgent: options.userAgent ?? 'coffer-client',
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
  };
  // Login and renew go through an unauthenticated pipeline on the same transport.
  const tokens = authTokensApi(new HttpClient(common));
  const provider = options.auth?.({ tokens, clock, logger });
  const http = new HttpClient({ ...common, auth: provider });
  const shutdown = new AbortController();
  return {
    baseUrl: options.baseUrl,
    admin: adminApi(http),
    auth: tokens,
    dynamicSecrets: dynamicSecretsApi(http),
    dynamicSecretLeases: dynamicSecretLeasesApi(http),
    environments: environmentsApi(http),
    events: eventsApi(http, shutdown.signal),
    folders: foldersApi(http),
    identities: identitiesApi(http),
    identityAuth: identityAuthApi(http),
    integrations: integrationsApi(http),
    memberships: membershipsApi(http),
    pki: pkiApi(http),
    privileges: privilegesApi(http),
    projectTemplates: projectTemplatesApi(http),
    projects: projectsApi(http),
    roles: rolesApi(http),
    secrets: secretsApi(http),
    tokenAuthTokens: tokenAuthTokensApi(http),
    universalAuthSecrets: universalAuthSecretsApi(http),
    close: () => {
      shutdown.abort();
      return transport.release();
    },
  };
}
