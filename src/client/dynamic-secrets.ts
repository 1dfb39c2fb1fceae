// Dynamic secrets on `/api/v1/dynamic-secrets`: the definitions (create, get and update by name,
// delete by name, list of one folder) and the lease request. Every call names the project by slug
// with an environment slug and a folder path. `get`, `create` and `update` answer with the provider
// `inputs`, credentials included: callers must never log or report them.
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** A dynamic secret as the service returns it; `inputs` only from get, create and update. */
export const dynamicSecretSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  version: z.number().int().optional(),
  type: z.string(),
  defaultTTL: z.string(),
  maxTTL: z.string().nullish(),
  folderId: z.string().optional(),
  status: z.string().nullish(),
  statusDetails: z.string().nullish(),
  usernameTemplate: z.string().nullish(),
  metadata: z.array(z.object({ key: z.string(), value: z.string() })).optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type DynamicSecret = z.output<typeof dynamicSecretSchema>;

const scope = {
  projectSlug: z.string().min(1),
  environmentSlug: z.string().min(1),
  path: z.string().min(1).optional(),
};
const scopeSchema = z.object(scope);
const provider = z.object({ type: z.string().min(1), inputs: z.record(z.string(), z.unknown()) });
const createSchema = z.object({
  ...scope,
  name: z.string().min(1).max(64),
  provider,
  defaultTTL: z.string().min(1),
  maxTTL: z.string().min(1).nullish(),
  usernameTemplate: z.string().max(255).optional(),
});
const updateSchema = z.object({
  ...scope,
  data: z.object({
    inputs: z.record(z.string(), z.unknown()).optional(),
    defaultTTL: z.string().min(1).optional(),
    maxTTL: z.string().min(1).nullish(),
    newName: z.string().min(1).optional(),
    usernameTemplate: z.string().max(255).nullish(),
  }),
});
const deleteSchema = z.object({ ...scope, isForced: z.boolean().optional() });

export type DynamicSecretScope = z.input<typeof scopeSchema>;
export type CreateDynamicSecretInput = z.input<typeof createSchema>;
export type UpdateDynamicSecretInput = z.input<typeof updateSchema>;
export type DeleteDynamicSecretInput = z.input<typeof deleteSchema>;

/** Dynamic-secret operations. */
export interface DynamicSecretsApi {
  create(input: CreateDynamicSecretInput, options?: CallOptions): Promise<DynamicSecret>;
  /** The dynamic secret `name` of the folder, with its inputs; 404 when there is none. */
  get(name: string, scope: DynamicSecretScope, options?: CallOptions): Promise<DynamicSecret>;
  list(scope: DynamicSecretScope, options?: CallOptions): Promise<DynamicSecret[]>;
  update(name: string, input: UpdateDynamicSecretInput, options?: CallOptions): Promise<DynamicSecret>;
  delete(name: string, input: DeleteDynamicSecretInput, options?: CallOptions): Promise<DynamicSecret>;
}

const BASE = '/api/v1/dynamic-secrets';
const one = envelope('dynamicSecret', dynamicSecretSchema);

function query(input: DynamicSecretScope, operation: string): Record<string, string | undefined> {
  return validateRequest(scopeSchema, input, operation);
}

export function dynamicSecretsApi(http: HttpClient): DynamicSecretsApi {
  const named = (name: string, operation: string) => `${BASE}/${seg(name, 'name', operation)}`;
  return {
    create: async (input, options) => {
      const body = validateRequest(createSchema, input, 'dynamicSecrets.create') as object;
      return http.call(
        { operation: 'dynamicSecrets.create', method: 'POST', path: BASE, body },
        one,
        options,
      );
    },
    get: async (name, input, options) => {
      const spec = {
        operation: 'dynamicSecrets.get',
        method: 'GET',
        path: named(name, 'dynamicSecrets.get'),
        query: query(input, 'dynamicSecrets.get'),
      } as const;
      return http.call(spec, one, options);
    },
    list: async (input, options) => {
      const q = query(input, 'dynamicSecrets.list');
      const spec = { operation: 'dynamicSecrets.list', method: 'GET', path: BASE, query: q } as const;
      return http.call(spec, envelope('dynamicSecrets', z.array(dynamicSecretSchema)), options);
    },
    update: async (name, input, options) => {
      const body = validateRequest(updateSchema, input, 'dynamicSecrets.update') as object;
      const path = named(name, 'dynamicSecrets.update');
      return http.call({ operation: 'dynamicSecrets.update', method: 'PATCH', path, body }, one, options);
    },
    delete: async (name, input, options) => {
      const body = validateRequest(deleteSchema, input, 'dynamicSecrets.delete') as object;
      const path = named(name, 'dynamicSecrets.delete');
      return http.call({ operation: 'dynamicSecrets.delete', method: 'DELETE', path, body }, one, options);
    },
  };
}
