/**
 * The Kubernetes ServiceAccount token a Connection presents to the service's Kubernetes, JWT or
 * OIDC auth, as a `JwtSupplier` for the client: the operator's projected token file, or a token
 * requested from the TokenRequest API for a named ServiceAccount.
 *
 * Caching: a token is kept until about 80% of its lifetime (from its `iat`/`exp` claims, read
 * without verifying), a projected file's for 5 minutes at most, and then re-read or re-requested;
 * `fresh` (after a login 401) always fetches anew. One fetch at a time per supplier.
 *
 * A projected file must hold a JWT (three base64url parts, a JSON header naming its `alg`, a JSON
 * payload) whose `aud` includes the audience the connection asks for (`projected.audience`);
 * otherwise it is never sent (reasons `InvalidTokenFile`, `TokenAudienceMismatch`). Which files
 * may be read at all is the `ServiceAccountTokenService`'s rule (`--projected-token-dir`).
 *
 * Confused-deputy guard: before a new token is first handed out, a TokenReview without audiences
 * asks the Kubernetes API server whether it accepts the token itself. If it does, the token is
 * never sent (reason `AudienceNotAllowed`): otherwise a namespace user could point `spec.url` at a
 * server of their own and collect a token that works against the cluster.
 *
 * Tokens never appear in errors or logs; errors name the file or the ServiceAccount.
 */
import type { JwtSupplier } from '../../client/index.ts';
import type { ServiceAccountTokenService } from '../kind-services.ts';
import { jwtShape } from './jwt-shape.ts';

/** Why no token can be handed out; the connection kinds map each to a condition reason. */
export type TokenProblem =
  | 'TokenSourceNotAllowed'
  | 'InvalidTokenFile'
  | 'TokenAudienceMismatch'
  | 'AudienceNotAllowed'
  | 'ServiceAccountTokenUnavailable';

/** No usable ServiceAccount token. The message names the source, never a token. */
export class ServiceAccountTokenError extends Error {
  readonly problem: TokenProblem;

  constructor(problem: TokenProblem, message: string) {
    super(message);
    this.problem = problem;
  }
}

/** Where the token comes from, with the ServiceAccount's namespace resolved. */
export type TokenSource =
  | { readonly kind: 'projected'; readonly path: string; readonly audience: string }
  | {
      readonly kind: 'serviceAccount';
      readonly namespace: string;
      readonly name: string;
      readonly audiences: readonly string[];
      readonly expirationSeconds: number;
    };

/** Part of the lifetime after which a token is replaced. */
const refreshFraction = 0.8;
/** A token already past that point (a projected file the kubelet rotates late) is kept this long. */
const minimumKeepMs = 10_000;
/** Kept this long when the token carries no `exp`. */
const unknownLifetimeKeepMs = 60_000;
/**
 * A projected file is re-read at least this often: with `--service-account-extend-token-expiration`
 * the API server stretches a kubelet token's `exp` to a year while the kubelet still rotates the
 * file hourly, and the file is what to follow.
 */
export const projectedRereadMs = 300_000;

/** `iat` and `exp` of a JWT in ms, read without verifying; undefined when absent or unreadable. */
export function jwtLifetime(token: string): { issuedAt?: number; expiresAt?: number } {
  const payload = token.split('.')[1];
  if (!payload) return {};
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const ms = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v * 1000 : undefined);
    const issuedAt = ms(claims['iat']);
    const expiresAt = ms(claims['exp']);
    return {
      ...(issuedAt === undefined ? {} : { issuedAt }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
  } catch {
    return {};
  }
}

/** When a token fetched at `now` should be replaced (ms since the epoch). */
export function refreshTime(token: string, now: number): number {
  const { issuedAt, expiresAt } = jwtLifetime(token);
  if (expiresAt === undefined) return now + unknownLifetimeKeepMs;
  const start = issuedAt ?? now;
  const planned = start + (expiresAt - start) * refreshFraction;
  return planned > now ? planned : Math.min(now + minimumKeepMs, expiresAt);
}

/** `projected token file <path>` or `ServiceAccount <ns>/<name>`, for messages. */
export function describeSource(source: TokenSource): string {
  return source.kind === 'projected'
    ? `projected token file ${source.path}`
    : `ServiceAccount ${source.namespace}/${source.name}`;
}

interface Cached {
  readonly token: string;
  readonly refreshAt: number;
}

/** A supplier of tokens from `source`; `now` is the operator's clock (ms). */
export function serviceAccountTokenSupplier(
  source: TokenSource,
  tokens: ServiceAccountTokenService,
  now: () => number,
): JwtSupplier {
  let cached: Cached | undefined;
  let inflight: Promise<string> | undefined;
  /** The last token the guard passed (re-reading an unrotated file needs no second review). */
  let reviewed: string | undefined;

  async function fetchToken(): Promise<string> {
    const token = await obtain(source, tokens);
    const { expiresAt } = jwtLifetime(token);
    if (expiresAt !== undefined && expiresAt <= now()) {
      throw new ServiceAccountTokenError(
        'ServiceAccountTokenUnavailable',
        `the token of ${describeSource(source)} expired at ${new Date(expiresAt).toISOString()}` +
          (source.kind === 'projected' ? ' (is the kubelet still rotating it?)' : ''),
      );
    }
    if (token !== reviewed) {
      await guard(source, tokens, token);
      reviewed = token;
    }
    const refreshAt = refreshTime(token, now());
    cached = {
      token,
      refreshAt: source.kind === 'projected' ? Math.min(refreshAt, now() + projectedRereadMs) : refreshAt,
    };
    return token;
  }

  return (request) => {
    if (!request?.fresh && !inflight && cached && now() < cached.refreshAt)
      return Promise.resolve(cached.token);
    inflight ??= fetchToken().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };
}

async function obtain(source: TokenSource, tokens: ServiceAccountTokenService): Promise<string> {
  const token =
    source.kind === 'projected'
      ? await tokens.readProjected(source.path)
      : await tokens.request(source.namespace, source.name, {
          audiences: source.audiences,
          expirationSeconds: source.expirationSeconds,
        });
  const trimmed = token.trim();
  if (trimmed.length === 0) {
    throw new ServiceAccountTokenError(
      'ServiceAccountTokenUnavailable',
      `${describeSource(source)} is empty`,
    );
  }
  if (source.kind === 'projected') checkProjectedToken(source, trimmed);
  return trimmed;
}

/** Throws unless `token` (read from `source`'s file) is a JWT for the audience the connection asks for. */
function checkProjectedToken(source: TokenSource & { kind: 'projected' }, token: string): void {
  const shape = jwtShape(token);
  if ('problem' in shape) {
    throw new ServiceAccountTokenError(
      'InvalidTokenFile',
      `${describeSource(source)} does not hold a JWT (${shape.problem}), so it is never sent`,
    );
  }
  if (!shape.audiences.includes(source.audience)) {
    throw new ServiceAccountTokenError(
      'TokenAudienceMismatch',
      `the token of ${describeSource(source)} is not for audience ${source.audience} (its aud claim does not ` +
        'include it), so it is never sent: project the token for that audience, or set projected.audience to ' +
        'the audience the identity’s auth expects',
    );
  }
}

async function guard(source: TokenSource, tokens: ServiceAccountTokenService, token: string): Promise<void> {
  if (!(await tokens.acceptedByApiServer(token))) return;
  const fix =
    source.kind === 'projected'
      ? 'project the token with an audience of its own (not the API server’s)'
      : 'list only audiences the Kubernetes API server does not accept in serviceAccountRef.audiences';
  throw new ServiceAccountTokenError(
    'AudienceNotAllowed',
    `the token of ${describeSource(source)} is accepted by the Kubernetes API server itself, so it is never ` +
      `sent to the service: ${fix}`,
  );
}
