// Native integrations (list, get, update, delete) and their authentication records
// (create with an access token, get, update, list, delete). Stored access tokens are never returned.
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { optString, timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** An integration (a sync of one environment/path to an external store). */
export const integrationSchema = z.object({
  id: z.string().min(1),
  integration: z.string(),
  integrationAuthId: z.string(),
  isActive: z.boolean(),
  envId: z.string().optional(),
  secretPath: z.string().optional(),
  app: optString,
  appId: optString,
  targetEnvironment: optString,
  targetEnvironmentId: optString,
  targetService: optString,
  targetServiceId: optString,
  owner: optString,
  path: optString,
  region: optString,
  scope: optString,
  url: optString,
  metadata: z.unknown().optional(),
  isSynced: z.boolean().nullish(),
  syncMessage: optString,
  lastUsed: timestamp.nullish(),
  environment: z.object({ id: z.string(), name: z.string(), slug: z.string() }).optional(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type Integration = z.output<typeof integrationSchema>;

/** An integration authentication record (the credentials stay on the service). */
export const integrationAuthSchema = z.object({
  id: z.string().min(1),
  projectId: z.string(),
  integration: z.string(),
  teamId: optString,
  url: optString,
  namespace: optString,
  accountId: optString,
  metadata: z.unknown().optional(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type IntegrationAuth = z.output<typeof integrationAuthSchema>;

const updateRequest = z.object({
  app: z.string().optional(),
  appId: z.string().optional(),
  isActive: z.boolean().optional(),
  // The service defaults an omitted secretPath to "/", so callers should always send it.
  secretPath: z.string().min(1).optional(),
  targetEnvironment: z.string().optional(),
  owner: z.string().optional(),
  environment: z.string().optional(),
  path: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  region: z.string().optional(),
});
export type UpdateIntegrationInput = z.input<typeof updateRequest>;

const createRequest = z.object({
  integrationAuthId: z.string().min(1),
  isActive: z.boolean().optional(),
  app: z.string().optional(),
  appId: z.string().optional(),
  sourceEnvironment: z.string().min(1),
  secretPath: z.string().min(1).optional(),
  targetEnvironment: z.string().optional(),
  owner: z.string().optional(),
  path: z.string().optional(),
  region: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type CreateIntegrationInput = z.input<typeof createRequest>;

const accessTokenRequest = z.object({
  workspaceId: z.string().min(1),
  integration: z.string().min(1),
  accessId: z.string().trim().optional(),
  accessToken: z.string().trim().optional(),
  awsAssumeIamRoleArn: z.string().optional(),
  url: z.url().optional(),
  namespace: z.string().trim().optional(),
  refreshToken: z.string().trim().optional(),
});
export type CreateIntegrationAuthInput = z.input<typeof accessTokenRequest>;

const authUpdateRequest = accessTokenRequest.omit({ workspaceId: true }).partial();
export type UpdateIntegrationAuthInput = z.input<typeof authUpdateRequest>;

/** Integration authentication records. */
export interface IntegrationAuthApi {
  /** `POST /api/v1/integration-auth/access-token`. */
  createWithAccessToken(input: CreateIntegrationAuthInput, options?: CallOptions): Promise<IntegrationAuth>;
  /** `GET /api/v1/integration-auth/{id}`. */
  get(integrationAuthId: string, options?: CallOptions): Promise<IntegrationAuth>;
  /** `PATCH /api/v1/integration-auth/{id}`: replaces the stored credentials of that record in place. */
  update(
    integrationAuthId: string,
    input: UpdateIntegrationAuthInput,
    options?: CallOptions,
  ): Promise<IntegrationAuth>;
  /** `GET /api/v1/workspace/{projectId}/authorizations`. */
  list(projectId: string, options?: CallOptions): Promise<IntegrationAuth[]>;
  /** `DELETE /api/v1/integration-auth/{id}`. */
  delete(integrationAuthId: string, options?: CallOptions): Promise<IntegrationAuth>;
}

/** Integrations, plus `auth` for their authentication records. */
export interface IntegrationsApi {
  /**
   * `POST /api/v1/integration`. The current service refuses it (403, pointing to Secret Syncs);
   * older releases create the integration.
   */
  create(input: CreateIntegrationInput, options?: CallOptions): Promise<Integration>;
  /** `GET /api/v1/workspace/{projectId}/integrations`. */
  list(projectId: string, options?: CallOptions): Promise<Integration[]>;
  /** `GET /api/v1/integration/{id}`. */
  get(integrationId: string, options?: CallOptions): Promise<Integration>;
  /** `PATCH /api/v1/integration/{id}`. */
  update(integrationId: string, input: UpdateIntegrationInput, options?: CallOptions): Promise<Integration>;
  /** `DELETE /api/v1/integration/{id}?shouldDeleteIntegrationSecrets=`. */
  delete(
    integrationId: string,
    query?: { shouldDeleteIntegrationSecrets?: boolean },
    options?: CallOptions,
  ): Promise<Integration>;
  auth: IntegrationAuthApi;
}

export function integrationsApi(http: HttpClient): IntegrationsApi {
  const one = (id: string, op: string): string => `/api/v1/integration/${seg(id, 'integrationId', op)}`;
  const single = envelope('integration', integrationSchema);
  return {
    create: async (input, options) => {
      const op = 'integrations.create';
      const body = validateRequest(createRequest, input, op);
      return http.call({ operation: op, method: 'POST', path: '/api/v1/integration', body }, single, options);
    },
    list: async (projectId, options) => {
      const op = 'integrations.list';
      const path = `/api/v1/workspace/${seg(projectId, 'projectId', op)}/integrations`;
      return http.call(
        { operation: op, method: 'GET', path },
        envelope('integrations', z.array(integrationSchema)),
        options,
      );
    },
    get: async (integrationId, options) => {
      const op = 'integrations.get';
      return http.call({ operation: op, method: 'GET', path: one(integrationId, op) }, single, options);
    },
    update: async (integrationId, input, options) => {
      const op = 'integrations.update';
      const body = validateRequest(updateRequest, input, op);
      return http.call(
        { operation: op, method: 'PATCH', path: one(integrationId, op), body },
        single,
        options,
      );
    },
    delete: async (integrationId, query, options) => {
      const op = 'integrations.delete';
      const spec = { operation: op, method: 'DELETE', path: one(integrationId, op), query } as const;
      return http.call(spec, single, options);
    },
    auth: integrationAuthApi(http),
  };
}

function integrationAuthApi(http: HttpClient): IntegrationAuthApi {
  const one = (id: string, op: string): string =>
    `/api/v1/integration-auth/${seg(id, 'integrationAuthId', op)}`;
  const single = envelope('integrationAuth', integrationAuthSchema);
  return {
    createWithAccessToken: async (input, options) => {
      const op = 'integrationAuth.createWithAccessToken';
      const body = validateRequest(accessTokenRequest, input, op);
      const spec = {
        operation: op,
        method: 'POST',
        path: '/api/v1/integration-auth/access-token',
        body,
      } as const;
      return http.call(spec, single, options);
    },
    get: async (integrationAuthId, options) => {
      const op = 'integrationAuth.get';
      return http.call({ operation: op, method: 'GET', path: one(integrationAuthId, op) }, single, options);
    },
    update: async (integrationAuthId, input, options) => {
      const op = 'integrationAuth.update';
      const body = validateRequest(authUpdateRequest, input, op);
      const spec = { operation: op, method: 'PATCH', path: one(integrationAuthId, op), body } as const;
      return http.call(spec, single, options);
    },
    list: async (projectId, options) => {
      const op = 'integrationAuth.list';
      const path = `/api/v1/workspace/${seg(projectId, 'projectId', op)}/authorizations`;
      const schema = envelope('authorizations', z.array(integrationAuthSchema));
      return http.call({ operation: op, method: 'GET', path }, schema, options);
    },
    delete: async (integrationAuthId, options) => {
      const op = 'integrationAuth.delete';
      return http.call(
        { operation: op, method: 'DELETE', path: one(integrationAuthId, op) },
        single,
        options,
      );
    },
  };
}
