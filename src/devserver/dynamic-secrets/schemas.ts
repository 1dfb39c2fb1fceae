/**
 * Request schemas of the dynamic-secret routes, as the service declares them
 * (docs/service-facts.md, "Dynamic secrets"): the provider union (`{type, inputs}`) with the full
 * input schemas of the SQL-database and Kubernetes providers, the required fields of every other
 * provider type, and the TTL strings (`ms` durations between 1 minute and 10 years).
 */
import { z } from 'zod';
import { badRequest } from '../domain/errors.ts';
import { parseDuration } from '../domain/duration.ts';
import { normalizeSecretPath } from '../domain/secret-model.ts';

const MINUTE_MS = 60_000;
const TEN_YEARS_MS = parseDuration('10y') ?? 0;

/** Milliseconds of a TTL string; 400 "Invalid date format string: …" when it is not one. */
export function ttlMs(value: string): number {
  const parsed = parseDuration(value);
  if (parsed === undefined) throw badRequest(`Invalid date format string: ${value}`);
  return parsed;
}

function checkTtl(value: string | null | undefined, ctx: z.RefinementCtx): void {
  if (!value) return;
  const valueMs = ttlMs(value);
  if (valueMs < MINUTE_MS) ctx.addIssue({ code: 'custom', message: 'TTL must be a greater than 1min' });
  if (valueMs > TEN_YEARS_MS) ctx.addIssue({ code: 'custom', message: 'TTL must be less than 10 years' });
}

/** A required TTL string within the service's bounds. */
export const ttlSchema = z.string().superRefine(checkTtl);
/** An optional TTL string within the service's bounds. */
export const optionalTtlSchema = z.string().optional().superRefine(checkTtl);
/** An optional, nullable TTL string (`maxTTL`). */
export const nullableTtlSchema = z.string().nullish().superRefine(checkTtl);

/**
 * The `path` field: trimmed, "/" by default, without a trailing slash (as the service's), and with
 * a leading slash and no repeated slashes (the devserver's folder paths; an empty path is "/").
 */
export const pathSchema = z
  .string()
  .trim()
  .default('/')
  .transform((p) => normalizeSecretPath(p));

/** Resource metadata entries. */
export const metadataSchema = z.array(z.object({ key: z.string().trim().min(1), value: z.string() }));

const passwordRequirementsSchema = z
  .object({
    length: z.number().min(1).max(250),
    required: z
      .object({
        lowercase: z.number().min(0),
        uppercase: z.number().min(0),
        digits: z.number().min(0),
        symbols: z.number().min(0),
      })
      .refine(
        (r) => r.lowercase + r.uppercase + r.digits + r.symbols <= 250,
        'Sum of required characters cannot exceed 250',
      ),
    allowedSymbols: z.string().optional(),
  })
  .refine((data) => {
    const r = data.required;
    return r.lowercase + r.uppercase + r.digits + r.symbols <= data.length;
  }, 'Sum of required characters cannot exceed the total length');

export type PasswordRequirements = z.infer<typeof passwordRequirementsSchema>;

/** SQL clients the service knows; the devserver runs statements only against `postgres`. */
export const SQL_CLIENTS = ['postgres', 'mysql2', 'oracledb', 'mssql', 'sap-ase', 'vertica'] as const;

export const sqlDatabaseInputsSchema = z.object({
  client: z.enum(SQL_CLIENTS),
  host: z.string().trim().toLowerCase(),
  port: z.number(),
  database: z.string().trim(),
  username: z.string().trim(),
  password: z.string().trim(),
  passwordRequirements: passwordRequirementsSchema.optional(),
  creationStatement: z.string().trim(),
  revocationStatement: z.string().trim(),
  renewStatement: z.string().trim().optional(),
  ca: z.string().optional(),
  sslEnabled: z.boolean().optional(),
  gatewayId: z.string().nullish(),
});

export type SqlDatabaseInputs = z.infer<typeof sqlDatabaseInputsSchema>;

const NAMESPACE = /^[A-Za-z0-9-]+$/;
const URL_MESSAGE = 'Invalid URL. Must start with http:// or https:// (e.g. https://example.com)';
const kubernetesUrl = z
  .string()
  .optional()
  .refine((v) => !v || /^https?:\/\/.+/.test(v), { message: URL_MESSAGE });

const kubernetesCommon = {
  url: kubernetesUrl,
  clusterToken: z.string().trim().optional(),
  ca: z.string().optional(),
  sslEnabled: z.boolean().default(false),
  gatewayId: z.string().optional(),
  audiences: z.array(z.string().trim().min(1)),
  authMethod: z.enum(['gateway', 'api']).default('api'),
};

export const kubernetesInputsSchema = z
  .discriminatedUnion('credentialType', [
    z.object({
      ...kubernetesCommon,
      credentialType: z.literal('static'),
      serviceAccountName: z.string().trim().min(1),
      namespace: z
        .string()
        .trim()
        .min(1)
        .refine((v) => !v.includes(','), 'Namespace must be a single value, not a comma-separated list')
        .refine((v) => NAMESPACE.test(v), 'Invalid namespace format'),
    }),
    z.object({
      ...kubernetesCommon,
      credentialType: z.literal('dynamic'),
      namespace: z
        .string()
        .trim()
        .min(1)
        .refine(
          (v) => v.split(',').every((ns) => NAMESPACE.test(ns.trim())),
          'Must be a valid comma-separated list of namespace values',
        ),
      roleType: z.enum(['cluster-role', 'role']),
      role: z.string().trim().min(1),
    }),
  ])
  .superRefine((data, ctx) => {
    if (data.authMethod === 'gateway' && !data.gatewayId) {
      const message = 'When auth method is set to Gateway, a gateway must be selected';
      ctx.addIssue({ code: 'custom', path: ['gatewayId'], message });
    }
    if (data.authMethod === 'api') {
      if (!data.clusterToken) {
        const message = 'When auth method is set to Token, a cluster token must be provided';
        ctx.addIssue({ code: 'custom', path: ['clusterToken'], message });
      }
      if (!data.url) {
        const message = 'When auth method is set to Token, a cluster URL must be provided';
        ctx.addIssue({ code: 'custom', path: ['url'], message });
      }
    }
  });

export type KubernetesInputs = z.infer<typeof kubernetesInputsSchema>;

const str = () => z.string().trim().min(1);
const list = () => z.array(z.unknown()).min(1);

/**
 * The other provider types: their required fields (extra fields are kept). The devserver stores
 * them but issues no leases for them.
 */
const OTHER_PROVIDERS: Record<string, z.ZodType<Record<string, unknown>>> = {
  cassandra: z.looseObject({ host: str(), port: z.number(), localDataCenter: str(), username: z.string(), password: z.string(), creationStatement: z.string(), revocationStatement: z.string() }), // prettier-ignore
  'sap-ase': z.looseObject({ host: str(), port: z.number(), database: z.string(), username: z.string(), password: z.string(), creationStatement: z.string(), revocationStatement: z.string() }), // prettier-ignore
  'aws-iam': z.looseObject({ region: str() }),
  redis: z.looseObject({ host: str(), port: z.number(), username: z.string(), creationStatement: z.string(), revocationStatement: z.string() }), // prettier-ignore
  'sap-hana': z.looseObject({ host: str(), port: z.number(), username: z.string(), password: z.string(), creationStatement: z.string(), revocationStatement: z.string() }), // prettier-ignore
  'aws-elasticache': z.looseObject({ clusterName: str(), accessKeyId: str(), secretAccessKey: str(), region: z.string(), creationStatement: z.string(), revocationStatement: z.string() }), // prettier-ignore
  'mongo-db-atlas': z.looseObject({ adminPublicKey: str(), adminPrivateKey: str(), groupId: str(), roles: list(), scopes: z.array(z.unknown()) }), // prettier-ignore
  'elastic-search': z.looseObject({ host: str(), port: z.number(), roles: list(), auth: z.looseObject({ type: z.enum(['user', 'api-key']) }) }), // prettier-ignore
  'mongo-db': z.looseObject({
    host: str(),
    username: str(),
    password: str(),
    database: str(),
    roles: list(),
  }),
  'rabbit-mq': z.looseObject({ host: str(), port: z.number(), username: str(), password: str(), virtualHost: z.looseObject({ name: str() }) }), // prettier-ignore
  'azure-entra-id': z.looseObject({ tenantId: str(), userId: str(), email: str(), applicationId: str(), clientSecret: str() }), // prettier-ignore
  'azure-sql-database': z.looseObject({ host: z.string(), port: z.number(), database: z.string(), username: z.string(), password: z.string(), masterCreationStatement: z.string(), creationStatement: z.string(), revocationStatement: z.string() }), // prettier-ignore
  ldap: z.looseObject({ url: str(), binddn: str(), bindpass: str() }),
  snowflake: z.looseObject({ accountId: str(), orgId: str(), username: str(), password: str(), creationStatement: str(), revocationStatement: str() }), // prettier-ignore
  totp: z.looseObject({ configType: z.enum(['url', 'manual']) }),
  vertica: z.looseObject({ host: z.string(), port: z.number(), username: z.string(), password: z.string(), database: z.string(), creationStatement: z.string(), revocationStatement: z.string() }), // prettier-ignore
  'gcp-iam': z.looseObject({ serviceAccountEmail: z.email().max(128) }),
  github: z.looseObject({ appId: z.number().min(1), installationId: z.number().min(1), privateKey: str() }),
  couchbase: z.looseObject({ url: z.url(), orgId: str(), projectId: str(), clusterId: str(), roles: list(), auth: z.looseObject({ apiKey: str() }) }), // prettier-ignore
};

/** Every provider type the service accepts. */
export const PROVIDER_TYPES = ['sql-database', 'kubernetes', ...Object.keys(OTHER_PROVIDERS)];

/** The input schema of `type` (undefined for an unknown type). */
export function inputsSchemaOf(type: string): z.ZodType<Record<string, unknown>> | undefined {
  if (type === 'sql-database') return sqlDatabaseInputsSchema;
  if (type === 'kubernetes') return kubernetesInputsSchema;
  return OTHER_PROVIDERS[type];
}

/** `provider` of the create body: `{type, inputs}` with `inputs` validated for that type. */
export const providerSchema = z
  .object({ type: z.enum(PROVIDER_TYPES as [string, ...string[]]), inputs: z.unknown() })
  .transform((provider, ctx) => {
    const parsed = inputsSchemaOf(provider.type)?.safeParse(provider.inputs);
    if (!parsed?.success) {
      for (const issue of parsed?.error.issues ?? []) {
        ctx.addIssue({ code: 'custom', path: ['inputs', ...issue.path], message: issue.message });
      }
      return z.NEVER;
    }
    return { type: provider.type, inputs: parsed.data };
  });
