/**
 * Test support for the Integration tests (imported only by tests): seeding an integration through
 * the devserver's admin route (the service no longer creates them), and a service client that
 * has the integration create call (`POST /api/v1/integration`), which the shared client lacks.
 */
import {
  ForbiddenError,
  ServiceError,
  type CallOptions,
  type Integration,
  type IntegrationsApi,
  type ServiceClient,
} from '../../client/index.ts';
import type { CreateIntegrationInput } from './mapping.ts';

/** What `POST /__devserver/integrations` takes. */
export interface SeedInput {
  projectId: string;
  integrationAuthId: string;
  environment: string;
  secretPath?: string;
  app?: string;
  isActive?: boolean;
}

async function postJson(url: string, body: unknown, token?: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Creates an integration through the devserver's admin route (needs `enableAdmin`). */
export async function seedIntegration(devserverUrl: string, input: SeedInput): Promise<Integration> {
  const answer = await postJson(`${devserverUrl}/__devserver/integrations`, input);
  if (answer.status !== 200) throw new Error(`cannot seed integration: devserver answered ${answer.status}`);
  return answer.body.integration as Integration;
}

/** `client` plus `integrations.create`, sent with `token` to `POST /api/v1/integration`. */
export function withIntegrationCreate(client: ServiceClient, token: string): ServiceClient {
  const create = async (input: CreateIntegrationInput, _options?: CallOptions): Promise<Integration> => {
    const answer = await postJson(`${client.baseUrl}/api/v1/integration`, input, token);
    if (answer.status === 200) return answer.body.integration as Integration;
    const init = {
      operation: 'integrations.create',
      status: answer.status,
      message: typeof answer.body.message === 'string' ? answer.body.message : 'request failed',
    };
    throw answer.status === 403 ? new ForbiddenError(init) : new ServiceError(init);
  };
  // The shared client's type has no create; the adapter looks for it at run time.
  const integrations: IntegrationsApi = Object.assign({ ...client.integrations }, { create });
  return { ...client, integrations };
}
