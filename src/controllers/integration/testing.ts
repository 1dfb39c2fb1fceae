/**
 * Test support for the Integration tests (imported only by tests): seeding an integration through
 * the devserver's admin route (the service no longer creates them).
 */
import type { Integration } from '../../client/index.ts';

/** What `POST /__devserver/integrations` takes. */
export interface SeedInput {
  projectId: string;
  integrationAuthId: string;
  environment: string;
  secretPath?: string;
  app?: string;
  isActive?: boolean;
}

async function postJson(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
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
