/** What a folder of the service holds, as the tests compare it. */
import type { ServiceClient } from '../../src/client/index.ts';

/** The keys and values of one folder (`environment` default `dev`) of project `workspaceId`. */
export async function folderValues(
  service: ServiceClient,
  workspaceId: string,
  secretPath: string,
  environment = 'dev',
): Promise<Record<string, string>> {
  const { secrets } = await service.secrets.list({ workspaceId, environment, secretPath });
  return Object.fromEntries(secrets.map((s) => [s.secretKey, s.secretValue]));
}
