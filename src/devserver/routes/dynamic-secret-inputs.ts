/**
 * The checks the service makes on a dynamic secret's provider inputs at create and update, after
 * schema validation: a `gatewayId` must name a gateway of the organisation (the devserver has none,
 * so 404 "Gateway with ID … not found"), SQL statements may use only their template variables, and
 * the provider must be reachable (PostgreSQL: `SELECT 1` as the admin user; Kubernetes: the
 * ServiceAccount (static) or the namespaces' ServiceAccount lists (dynamic) readable with the cluster
 * token). Provider types the devserver does not issue leases for are stored unchecked.
 */
import { notFound } from '../domain/errors.ts';
import { kubernetesProvider } from '../dynamic-secrets/kubernetes.ts';
import { sqlDatabaseInputsSchema } from '../dynamic-secrets/schemas.ts';
import { sqlDatabaseProvider, validateSqlStatements } from '../dynamic-secrets/sql-database.ts';

/** Throws the service's 400/404 when `inputs` (already schema-valid for `type`) cannot be used. */
export async function checkProviderInputs(type: string, inputs: Record<string, unknown>): Promise<void> {
  const gatewayId = inputs.gatewayId;
  if (typeof gatewayId === 'string' && gatewayId) throw notFound(`Gateway with ID ${gatewayId} not found`);
  if (type === 'sql-database') {
    const sql = sqlDatabaseInputsSchema.parse(inputs);
    validateSqlStatements(sql);
    if (sql.client === 'postgres') await sqlDatabaseProvider.validateConnection(inputs);
  } else if (type === 'kubernetes') {
    await kubernetesProvider.validateConnection(inputs);
  }
}
