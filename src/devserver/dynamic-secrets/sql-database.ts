/**
 * The SQL-database provider for PostgreSQL (`client: "postgres"`), as the service runs it: the
 * admin's creation, renew and revocation statements, Handlebars templates (handlebars.ts) rendered
 * with `username`, `password`, `expiration` (ISO-8601 expiry) and `database`, split on ";" and run
 * in one transaction over a connection as the configured admin user. The lease's username is generated (or
 * rendered from the username template), its password by the service's rules; the lease data is
 * `{DB_USERNAME, DB_PASSWORD}`. Renewal without a renew statement changes nothing in the database.
 * Error messages have the username, password and database removed. Other SQL clients are stored
 * but not served (see `notAvailable`).
 */
import pg from 'pg';
import { badRequest } from '../domain/errors.ts';
import { notAvailable, type DynamicSecretProvider, type LeaseRequest, type LeaseResult } from './provider.ts';
import { sqlDatabaseInputsSchema, type SqlDatabaseInputs } from './schemas.ts';
import { renderStatement, validateTemplate } from './handlebars.ts';
import { generatePassword, generateUsername, redact } from './templates.ts';

const TIMEOUT_MS = 10_000;

/** Validates the statements as the service does (400 "Template sanitization failed: SQL …"). */
export function validateSqlStatements(inputs: SqlDatabaseInputs): void {
  validateTemplate('SQL creation', inputs.creationStatement, [
    'username',
    'password',
    'expiration',
    'database',
  ]);
  if (inputs.renewStatement) {
    validateTemplate('SQL renew', inputs.renewStatement, ['username', 'expiration', 'database']);
  }
  validateTemplate('SQL revoke', inputs.revocationStatement, ['username', 'database']);
}

function parse(inputs: Record<string, unknown>): SqlDatabaseInputs {
  const parsed = sqlDatabaseInputsSchema.parse(inputs);
  if (parsed.client !== 'postgres') throw notAvailable(`sql-database with client "${parsed.client}"`);
  return parsed;
}

function connect(inputs: SqlDatabaseInputs): pg.Client {
  return new pg.Client({
    host: inputs.host,
    port: inputs.port,
    database: inputs.database,
    user: inputs.username,
    password: inputs.password,
    ssl: inputs.ca ? { ca: inputs.ca, rejectUnauthorized: false, servername: inputs.host } : undefined,
    connectionTimeoutMillis: TIMEOUT_MS,
    query_timeout: TIMEOUT_MS,
  });
}

/** Runs the ";"-separated `statement` in one transaction as the admin user. */
async function runStatements(inputs: SqlDatabaseInputs, statement: string): Promise<void> {
  const client = connect(inputs);
  // A connection error after connect (server shutdown) must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('BEGIN');
    for (const query of statement.split(';').filter(Boolean)) await client.query(query);
    await client.query('COMMIT');
  } finally {
    await client.end().catch(() => undefined);
  }
}

function failure(action: string, err: unknown, secrets: string[]): Error {
  const message = err instanceof Error ? err.message : String(err);
  return badRequest(`Failed to ${action} lease from provider: ${redact(message, secrets)}`);
}

async function validateConnection(raw: Record<string, unknown>): Promise<void> {
  const inputs = parse(raw);
  try {
    await runStatements(inputs, 'SELECT 1');
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw badRequest(
      `Failed to connect with provider: ${redact(message, [inputs.username, inputs.password])}`,
    );
  }
}

async function create(request: LeaseRequest): Promise<LeaseResult> {
  const inputs = parse(request.inputs);
  const username = generateUsername({
    template: request.usernameTemplate,
    identityName: request.identityName,
    dynamicSecret: request.dynamicSecret,
    nowMs: request.now,
  });
  const password = generatePassword(inputs.passwordRequirements);
  try {
    const statement = renderStatement(inputs.creationStatement, {
      username,
      password,
      expiration: new Date(request.expireAt).toISOString(),
      database: inputs.database,
    });
    await runStatements(inputs, statement);
  } catch (err) {
    throw failure('create', err, [username, password, inputs.database, inputs.password]);
  }
  return { entityId: username, data: { DB_USERNAME: username, DB_PASSWORD: password } };
}

async function renew(raw: Record<string, unknown>, entityId: string, expireAt: number): Promise<void> {
  const inputs = parse(raw);
  if (!inputs.renewStatement) return;
  const statement = renderStatement(inputs.renewStatement, {
    username: entityId,
    expiration: new Date(expireAt).toISOString(),
    database: inputs.database,
  });
  try {
    await runStatements(inputs, statement);
  } catch (err) {
    throw failure('renew', err, [inputs.database, inputs.password]);
  }
}

async function revoke(raw: Record<string, unknown>, entityId: string): Promise<void> {
  const inputs = parse(raw);
  try {
    const statement = renderStatement(inputs.revocationStatement, {
      username: entityId,
      database: inputs.database,
    });
    await runStatements(inputs, statement);
  } catch (err) {
    throw failure('revoke', err, [entityId, inputs.database, inputs.password]);
  }
}

/** The PostgreSQL provider. */
export const sqlDatabaseProvider: DynamicSecretProvider = { validateConnection, create, renew, revoke };
