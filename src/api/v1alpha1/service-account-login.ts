/**
 * The ServiceAccount-token logins of Connection and ClusterConnection (`auth.kubernetes`,
 * `auth.jwt`, `auth.oidc`): which machine identity to log in as (its id, or an Identity resource
 * whose `status.id` the operator reads) and where the operator gets the Kubernetes ServiceAccount
 * token it presents. No credential is stored in any Secret.
 */
import { z } from 'zod';
import { namespaceName, objectName } from './common.ts';
import { celCountPresent, countPresent, withRules } from './schema-helpers.ts';

/**
 * The directory where the chart's Deployment mounts the operator's projected token; the operator
 * reads a projected token only below its `--projected-token-dir`, which defaults to this.
 */
export const defaultProjectedTokenDir = '/var/run/secrets/coffer.dev/serviceaccount';
/** The token file in that directory (the chart projects it as `token`). */
export const defaultProjectedTokenPath = `${defaultProjectedTokenDir}/token`;
/** The audience the chart projects the operator's token for (values `serviceAccountToken.projected.audience`). */
export const defaultProjectedTokenAudience = 'coffer';
/** TokenRequest expiry bounds: the API server refuses less than 10 minutes. */
export const tokenExpirationSeconds = { min: 600, max: 86400, default: 600 } as const;

const tokenSources = ['projected', 'serviceAccountRef'] as const;

/** True when `path` has no empty, `.` or `..` segment and no trailing slash (mirrors the CEL rule). */
export function isNormalizedPath(path: string): boolean {
  return !path.includes('//') && !/\/\.\.?(\/|$)/.test(path) && !path.endsWith('/');
}

const projectedPath = withRules(z.string().min(2).max(4096).regex(/^\//, 'must be an absolute path'), [
  {
    rule:
      "!self.contains('//') && !self.contains('/./') && !self.contains('/../') && " +
      "!self.endsWith('/.') && !self.endsWith('/..') && !self.endsWith('/')",
    message: 'path: must be a normalized absolute path (no empty, . or .. segments, no trailing /)',
    check: isNormalizedPath,
  },
]);

const projected = z
  .object({
    path: projectedPath
      .default(defaultProjectedTokenPath)
      .describe(
        'File holding the token, re-read as the kubelet rotates it. It must lie in the operator’s projected-token ' +
          'directory (--projected-token-dir, default ' +
          `${defaultProjectedTokenDir}), also once symlinks are resolved (elsewhere Synced=False with reason ` +
          `TokenSourceNotAllowed). Default: ${defaultProjectedTokenPath}.`,
      ),
    audience: z
      .string()
      .min(1)
      .max(256)
      .default(defaultProjectedTokenAudience)
      .describe(
        'Audience the token must carry (its aud claim, a string or a list, must include it), e.g. the audience ' +
          'the identity’s auth expects; a file that is not such a JWT is never sent (Synced=False with reason ' +
          `InvalidTokenFile or TokenAudienceMismatch). Default: ${defaultProjectedTokenAudience}, the chart’s ` +
          'serviceAccountToken.projected.audience.',
      ),
  })
  .describe(
    'The operator’s own projected ServiceAccount token (a file the kubelet rotates). This is the operator’s ' +
      'identity: allowed on a ClusterConnection, and on a Connection only in the operator’s own namespace ' +
      '(elsewhere Synced=False with reason TokenSourceNotAllowed).',
  );

/** Fields of a TokenRequest reference; `namespace` is added for ClusterConnection. */
const serviceAccountRefFields = {
  name: objectName.describe('Name of the ServiceAccount a token is requested for.'),
  audiences: z
    .array(z.string().min(1).max(256))
    .min(1)
    .max(5)
    .refine((items) => new Set(items).size === items.length, { message: 'entries must be unique' })
    .meta({ 'x-kubernetes-list-type': 'set' })
    .describe(
      'Audiences of the requested token (1 to 5), e.g. the audience the identity’s auth expects. ' +
        'A token the Kubernetes API server itself would accept is never sent (reason AudienceNotAllowed).',
    ),
  expirationSeconds: z
    .int()
    .min(tokenExpirationSeconds.min)
    .max(tokenExpirationSeconds.max)
    .default(tokenExpirationSeconds.default)
    .describe(
      'Lifetime of each requested token in seconds (600 to 86400; the API server refuses less than 600). ' +
        'The token is re-requested at about 80% of its lifetime. Default: 600.',
    ),
};

/** A ServiceAccount in the Connection's own namespace. */
export const localServiceAccountRef = z
  .object(serviceAccountRefFields)
  .describe(
    'A short-lived token requested from the TokenRequest API for a ServiceAccount in this Connection’s namespace.',
  );

/** A ServiceAccount in a named namespace (ClusterConnection). */
export const namespacedServiceAccountRef = z
  .object({
    ...serviceAccountRefFields,
    namespace: namespaceName.describe('Namespace of the ServiceAccount.'),
  })
  .describe('A short-lived token requested from the TokenRequest API for a named ServiceAccount.');

export type ServiceAccountRef = z.output<typeof localServiceAccountRef> & { namespace?: string };

const identityRefName = objectName.describe('Name of the Identity resource to log in as.');
const identityRefPurpose =
  'The operator reads the identity’s id from the Identity’s status.id; until the Identity is Ready the ' +
  'connection waits (Ready=False; Synced=False with reason ReferenceNotReady), and a change of the Identity ' +
  'is picked up at once.';

/** An Identity resource in the Connection's own namespace. */
export const localIdentityRef = z
  .object({ name: identityRefName })
  .describe(`An Identity resource in this Connection’s namespace to log in as. ${identityRefPurpose}`);

/** An Identity resource in a named namespace (ClusterConnection). */
export const namespacedIdentityRef = z
  .object({ name: identityRefName, namespace: namespaceName.describe('Namespace of the Identity resource.') })
  .describe(`An Identity resource to log in as. ${identityRefPurpose}`);

/** A reference to the Identity to log in as, as the operator reads it. */
export interface IdentityRef {
  readonly name: string;
  readonly namespace?: string;
}

/** The references of a login: local (Connection) or naming their namespace (ClusterConnection). */
export interface LoginRefs<S extends z.ZodObject, I extends z.ZodObject> {
  readonly serviceAccountRef: S;
  readonly identityRef: I;
}

/** The references of a Connection's logins: ServiceAccount and Identity of its own namespace. */
export const localLoginRefs = { serviceAccountRef: localServiceAccountRef, identityRef: localIdentityRef };

/** The references of a ClusterConnection's logins: each names its namespace. */
export const namespacedLoginRefs = {
  serviceAccountRef: namespacedServiceAccountRef,
  identityRef: namespacedIdentityRef,
};

const identitySources = ['identityId', 'identityRef'] as const;

/** The three logins that present a ServiceAccount token, built for (local or namespaced) refs. */
export function serviceAccountLogins<S extends z.ZodObject, I extends z.ZodObject>(refs: LoginRefs<S, I>) {
  const serviceAccountToken = withRules(
    z.object({ projected: projected.optional(), serviceAccountRef: refs.serviceAccountRef.optional() }),
    [
      {
        rule: `${celCountPresent(tokenSources)} == 1`,
        message: 'serviceAccountToken: set exactly one of projected or serviceAccountRef',
        check: (value) => countPresent(value, tokenSources) === 1,
      },
    ],
  ).describe('Where the ServiceAccount token comes from: exactly one of projected or serviceAccountRef.');
  const login = (method: string, what: string) =>
    withRules(
      z.object({
        identityId: z
          .string()
          .min(1)
          .max(256)
          .optional()
          .describe(
            `Id of the machine identity to log in as; it must have ${what} configured. ` +
              'Exactly one of identityId or identityRef.',
          ),
        identityRef: refs.identityRef
          .optional()
          .describe(
            `${refs.identityRef.description ?? ''} The identity must have ${what} configured. ` +
              'Exactly one of identityId or identityRef.',
          ),
        serviceAccountToken,
      }),
      [
        {
          rule: `${celCountPresent(identitySources)} == 1`,
          message: `${method}: set exactly one of identityId or identityRef`,
          check: (value) => countPresent(value, identitySources) === 1,
        },
      ],
    ).optional();
  return {
    kubernetes: login('kubernetes', 'Kubernetes auth').describe(
      'Log in with the service’s Kubernetes auth: the service checks the ServiceAccount token by a ' +
        'TokenReview against the cluster. Access tokens are renewed automatically.',
    ),
    jwt: login('jwt', 'JWT auth').describe(
      'Log in with the service’s JWT auth: the service verifies the ServiceAccount token against the ' +
        'cluster’s keys (static keys or JWKS URL). Access tokens are renewed automatically.',
    ),
    oidc: login('oidc', 'OIDC auth').describe(
      'Log in with the service’s OIDC auth: the service verifies the ServiceAccount token against the ' +
        'cluster issuer’s discovery document and JWKS. Access tokens are renewed automatically.',
    ),
  };
}

/**
 * Spec of one ServiceAccount-token login, as the operator reads it: exactly one of `identityId`
 * and `identityRef` (the connection resolver replaces the reference by the Identity's id before
 * the client is built).
 */
export interface ServiceAccountLogin {
  readonly identityId?: string;
  readonly identityRef?: IdentityRef;
  readonly serviceAccountToken: {
    readonly projected?: { readonly path: string; readonly audience: string };
    readonly serviceAccountRef?: ServiceAccountRef;
  };
}
