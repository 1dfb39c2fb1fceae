/**
 * The provider settings of a DynamicSecret (`sqlDatabase`, `kubernetes`) and its TTL fields. Admin
 * credentials are Secret references in the resource's namespace, never literal values. TTLs are the
 * service's own duration strings (`30m`, `1h`, `7d`, see duration.ts), between 1 minute and 10
 * years as the service demands; CEL compares them in milliseconds (as doubles, so no overflow).
 */
import { z } from 'zod';
import { accessRangePattern, parseAccessRange } from './duration.ts';
import { namespaceName, secretKeySelector } from './common.ts';
import { withRules } from './schema-helpers.ts';

const MIN_TTL_MS = parseAccessRange('1m');
const MAX_TTL_MS = parseAccessRange('10y');
const unitMs = ['ms', 's', 'm', 'h', 'd', 'w', 'y'].map((u) => `'${u}': ${parseAccessRange(`1${u}`)}.0`);

/** CEL: the milliseconds of the TTL string at `expr` (a double). */
export function celTtlMs(expr: string): string {
  return `(double(int(${expr}.find('^[0-9]+'))) * {${unitMs.join(', ')}}[${expr}.find('[a-z]+$')])`;
}

/** CEL: whether the string at `expr` is a TTL string (the other TTL rules hold only then). */
export function celIsTtl(expr: string): string {
  return `${expr}.matches('${accessRangePattern.source}')`;
}

/** Milliseconds of a TTL string; NaN when it is not one (the pattern reports that). */
export function ttlMs(value: string): number {
  try {
    return parseAccessRange(value);
  } catch {
    return Number.NaN;
  }
}

/** A TTL field `field`: the service's duration format, at least 1m and at most 10y. */
export function ttl(field: string) {
  const schema = z
    .string()
    .max(16)
    .regex(accessRangePattern, 'must be a duration such as 30m, 1h or 7d (units ms, s, m, h, d, w, y)');
  return withRules(schema, [
    {
      rule: `!${celIsTtl('self')} || (${celTtlMs('self')} >= ${MIN_TTL_MS}.0 && ${celTtlMs('self')} <= ${MAX_TTL_MS}.0)`,
      message: `${field} must be at least 1m and at most 10y`,
      check: (v) => Number.isNaN(ttlMs(v)) || (ttlMs(v) >= MIN_TTL_MS && ttlMs(v) <= MAX_TTL_MS),
    },
  ]);
}

/** SQL clients the service knows. */
export const sqlClients = ['postgres', 'mysql2', 'oracledb', 'mssql', 'sap-ase', 'vertica'] as const;

const statement = (what: string) => z.string().min(1).max(16384).describe(what);
const pem = z.string().max(65536);

export const sqlDatabaseProvider = z
  .object({
    client: z
      .enum(sqlClients)
      .describe('Database client: postgres, mysql2, oracledb, mssql, sap-ase or vertica.'),
    host: z.string().min(1).max(253).describe('Host name or address of the database server.'),
    port: z.int().min(1).max(65535).describe('Port of the database server.'),
    database: z.string().min(1).max(255).describe('Database the statements run in.'),
    username: z.string().min(1).max(255).describe('Admin user the service connects as.'),
    passwordSecretRef: secretKeySelector.describe(
      'Secret key (in this namespace) holding the admin user’s password; a change there is sent to the service.',
    ),
    creationStatement: statement(
      'Statements that create a lease’s user; template variables username, password, expiration, database (each in double braces).',
    ),
    revocationStatement: statement(
      'Statements that remove a lease’s user; template variables username, database.',
    ),
    renewStatement: statement(
      'Statements run when a lease is renewed; template variables username, expiration, database. Unset: renewal changes nothing in the database.',
    ).optional(),
    ca: pem.optional().describe('PEM CA certificate the service trusts for the database’s TLS certificate.'),
    sslEnabled: z.boolean().optional().describe('Connect with TLS. Unset: the service’s default.'),
  })
  .describe('An SQL database: each lease is a database user made by creationStatement.');

export const kubernetesCredentialTypes = ['static', 'dynamic'] as const;

export const kubernetesProvider = withRules(
  z.object({
    url: z
      .string()
      .max(2048)
      .regex(/^https?:\/\/.+/, 'must start with http:// or https://')
      .describe('URL of the cluster’s API server.'),
    clusterTokenSecretRef: secretKeySelector.describe(
      'Secret key (in this namespace) holding the token the service calls the cluster with; a change there is sent to the service.',
    ),
    ca: pem.optional().describe('PEM CA certificate of the API server (used when sslEnabled).'),
    sslEnabled: z
      .boolean()
      .optional()
      .describe('Verify the API server’s certificate against ca. Default: false.'),
    credentialType: z
      .enum(kubernetesCredentialTypes)
      .describe(
        'static: a token of an existing ServiceAccount (serviceAccountName in namespace); dynamic: a new ' +
          'ServiceAccount per lease, bound to role.',
      ),
    namespace: namespaceName.describe(
      'Namespace of the ServiceAccount (static), or the namespace leases use by default (dynamic).',
    ),
    additionalNamespaces: z
      .array(namespaceName)
      .max(64)
      .optional()
      .describe('Further namespaces a lease may ask for (dynamic only).'),
    serviceAccountName: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .describe('ServiceAccount whose tokens leases get (static).'),
    roleType: z
      .enum(['cluster-role', 'role'])
      .optional()
      .describe('Kind of role bound to a lease’s ServiceAccount (dynamic).'),
    role: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .describe('Name of the role bound to a lease’s ServiceAccount (dynamic).'),
    audiences: z
      .array(z.string().min(1).max(253))
      .max(16)
      .default([])
      .describe('Audiences of the issued tokens. Default: none (the API server’s).'),
  }),
  [
    {
      rule: "self.credentialType != 'static' || (has(self.serviceAccountName) && !has(self.additionalNamespaces))",
      message: 'credentialType static needs serviceAccountName and no additionalNamespaces',
      check: (k) =>
        k.credentialType !== 'static' ||
        (k.serviceAccountName !== undefined && k.additionalNamespaces === undefined),
    },
    {
      rule: "self.credentialType != 'dynamic' || (has(self.roleType) && has(self.role))",
      message: 'credentialType dynamic needs roleType and role',
      check: (k) => k.credentialType !== 'dynamic' || (k.roleType !== undefined && k.role !== undefined),
    },
  ],
).describe('A Kubernetes cluster: each lease is a ServiceAccount token.');
