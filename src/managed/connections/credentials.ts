/**
 * The credentials and TLS settings of a Connection or ClusterConnection, read from the Secrets and
 * ConfigMaps its spec names. Shared by both kinds: a Connection's references live in its own
 * namespace, a ClusterConnection's name their namespace.
 *
 * Values are returned to the caller only to build an authenticated client; they never appear in
 * errors (which name the Secret and key, not the content).
 */
import type { JwtLoginMethod, JwtSupplier, TlsOptions } from '../../client/index.ts';
import type { ServiceAccountLogin } from '../../api/v1alpha1/index.ts';
import type { ConfigMapSource, SecretSource, ServiceAccountTokenService } from '../kind-services.ts';
import { serviceAccountCredentials } from './service-account-credentials.ts';
import { managedReasons } from '../reasons.ts';

/** A key of a Secret or ConfigMap; `namespace` only on ClusterConnection references. */
export interface KeyRef {
  readonly name: string;
  readonly key: string;
  readonly namespace?: string;
}

/** The spec fields Connection and ClusterConnection share (parsed, defaults applied). */
export interface ConnectionSettings {
  readonly url: string;
  readonly tls?: {
    readonly caBundle?: string;
    readonly caBundleSecretRef?: KeyRef;
    readonly caBundleConfigMapRef?: KeyRef;
    readonly insecureSkipVerify?: boolean;
  };
  readonly auth: {
    readonly token?: { readonly secretRef: KeyRef };
    readonly universalAuth?: { readonly clientIdSecretRef: KeyRef; readonly clientSecretSecretRef: KeyRef };
    readonly kubernetes?: ServiceAccountLogin;
    readonly jwt?: ServiceAccountLogin;
    readonly oidc?: ServiceAccountLogin;
  };
  readonly requestsPerMinute?: number;
}

/** How the client authenticates. */
export type AuthCredentials =
  | { readonly method: 'token'; readonly token: string }
  | { readonly method: 'universalAuth'; readonly clientId: string; readonly clientSecret: string }
  | { readonly method: JwtLoginMethod; readonly identityId: string; readonly jwt: JwtSupplier };

/** Everything needed to build an authenticated client. */
export interface Credentials {
  readonly auth: AuthCredentials;
  readonly tls?: TlsOptions;
}

/** Reason of the condition when a referenced Secret, ConfigMap or key is missing. */
export const CREDENTIALS_NOT_FOUND = managedReasons.names.CredentialsNotFound;

/** A referenced Secret/ConfigMap or key is missing or empty. The message names it, never a value. */
export class MissingCredentialsError extends Error {
  readonly reason = CREDENTIALS_NOT_FOUND;
}

/** A reference with its namespace filled in. */
export type ResolvedRef = KeyRef & { readonly namespace: string };

/** `ref` with its namespace defaulted to `namespace`. */
export function place(ref: KeyRef, namespace: string | undefined): ResolvedRef {
  const ns = ref.namespace ?? namespace;
  if (!ns) throw new MissingCredentialsError(`Secret ${ref.name} has no namespace`);
  return { ...ref, namespace: ns };
}

/** Secret keys the settings read (auth and CA), with namespaces resolved against `namespace`. */
export function secretKeyRefs(settings: ConnectionSettings, namespace: string | undefined): ResolvedRef[] {
  const { token, universalAuth } = settings.auth;
  const refs: KeyRef[] = [];
  if (token) refs.push(token.secretRef);
  if (universalAuth) refs.push(universalAuth.clientIdSecretRef, universalAuth.clientSecretSecretRef);
  if (settings.tls?.caBundleSecretRef) refs.push(settings.tls.caBundleSecretRef);
  return refs.map((ref) => place(ref, namespace));
}

/** ConfigMap keys the settings read (the CA bundle). */
export function configMapKeyRefs(
  settings: Pick<ConnectionSettings, 'tls'>,
  namespace: string | undefined,
): ResolvedRef[] {
  const ref = settings.tls?.caBundleConfigMapRef;
  return ref ? [place(ref, namespace)] : [];
}

/** The trimmed value of one key; throws `MissingCredentialsError` naming what is missing. */
export async function readKey(
  source: SecretSource | ConfigMapSource,
  what: 'Secret' | 'ConfigMap',
  ref: ResolvedRef,
): Promise<string> {
  const data = await source.read(ref.namespace, ref.name);
  if (!data) throw new MissingCredentialsError(`${what} ${ref.namespace}/${ref.name} does not exist`);
  const value = data[ref.key]?.trim();
  if (!value) throw new MissingCredentialsError(`${what} ${ref.namespace}/${ref.name} has no key ${ref.key}`);
  return value;
}

/** Sources of referenced values. */
export interface CredentialSources {
  readonly secrets: SecretSource;
  readonly configMaps: ConfigMapSource;
  /** ServiceAccount tokens for the Kubernetes, JWT and OIDC logins (absent: those are refused). */
  readonly serviceAccountTokens?: ServiceAccountTokenService;
  /** The operator's own namespace, where a Connection may use the projected token; unknown: nowhere. */
  readonly operatorNamespace?: string;
  /** Clock of token expiry checks (ms; default `Date.now`). */
  readonly nowMs?: () => number;
}

/** The TLS options of `settings`, reading a referenced CA bundle; undefined without `tls`. */
export async function readTls(
  settings: Pick<ConnectionSettings, 'tls'>,
  namespace: string | undefined,
  sources: CredentialSources,
): Promise<TlsOptions | undefined> {
  const tls = settings.tls;
  if (!tls) return undefined;
  let ca: string | undefined = tls.caBundle;
  if (tls.caBundleSecretRef)
    ca = await readKey(sources.secrets, 'Secret', place(tls.caBundleSecretRef, namespace));
  if (tls.caBundleConfigMapRef)
    ca = await readKey(sources.configMaps, 'ConfigMap', place(tls.caBundleConfigMapRef, namespace));
  return { ...(ca ? { ca } : {}), rejectUnauthorized: tls.insecureSkipVerify !== true };
}

/**
 * Reads the credentials and TLS settings. Throws `MissingCredentialsError` when a referenced
 * object or key is missing, `ServiceAccountTokenError` (`TokenSourceNotAllowed`) for a projected
 * token the connection may not use, and `Error` when the spec names no method (the CRD prevents
 * that). ServiceAccount tokens are fetched later, when the client logs in.
 */
export async function readCredentials(
  settings: ConnectionSettings,
  namespace: string | undefined,
  sources: CredentialSources,
): Promise<Credentials> {
  const { token, universalAuth } = settings.auth;
  const tls = await readTls(settings, namespace, sources);
  if (token) {
    const value = await readKey(sources.secrets, 'Secret', place(token.secretRef, namespace));
    return { auth: { method: 'token', token: value }, ...(tls ? { tls } : {}) };
  }
  if (universalAuth) {
    const [clientId, clientSecret] = await Promise.all([
      readKey(sources.secrets, 'Secret', place(universalAuth.clientIdSecretRef, namespace)),
      readKey(sources.secrets, 'Secret', place(universalAuth.clientSecretSecretRef, namespace)),
    ]);
    return { auth: { method: 'universalAuth', clientId, clientSecret }, ...(tls ? { tls } : {}) };
  }
  const auth = serviceAccountCredentials(settings.auth, namespace, sources);
  if (auth) return { auth, ...(tls ? { tls } : {}) };
  throw new Error('cannot read credentials: spec.auth sets no authentication method');
}
