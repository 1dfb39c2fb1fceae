// The tests' private PostgreSQL is the sandbox's (src/sandbox/postgres.ts: a fresh cluster on
// 127.0.0.1 at a free port, superuser `admin` with a random password, stopped on exit), plus the
// statements and provider inputs the dynamic-secret tests create leases with.
import type { PostgresServer } from '../../src/sandbox/postgres.ts';

export { postgresInstalled, startPostgres, type PostgresServer } from '../../src/sandbox/postgres.ts';

/** The statements a lease's role is created, renewed and revoked with (the service's template variables). */
export const roleStatements = {
  creationStatement: `CREATE ROLE "{{username}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`,
  renewStatement: `ALTER ROLE "{{username}}" VALID UNTIL '{{expiration}}';`,
  revocationStatement: `DROP ROLE IF EXISTS "{{username}}";`,
} as const;

/**
 * The `inputs` of a `sql-database` dynamic secret on `db`: the superuser as admin and
 * `roleStatements`, with `overrides` on top.
 */
export function sqlDatabaseInputs(db: PostgresServer, overrides: Record<string, unknown> = {}) {
  return {
    client: 'postgres',
    host: db.host,
    port: db.port,
    database: db.database,
    username: db.user,
    password: db.password,
    ...roleStatements,
    ...overrides,
  };
}
