// Project environments: create, get, update, delete under /api/v1/workspace/{projectId}.
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { slug, timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** An environment of a project. */
export const environmentSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  slug: z.string(),
  position: z.number().int().optional(),
  projectId: z.string().optional(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type Environment = z.output<typeof environmentSchema>;

const createRequest = z.object({
  name: z.string().trim(),
  slug: slug(64),
  position: z.number().int().min(1).optional(),
});
export type CreateEnvironmentInput = z.input<typeof createRequest>;

const updateRequest = z.object({
  name: z.string().trim().optional(),
  slug: slug(64).optional(),
  position: z.number().int().min(1).optional(),
});
export type UpdateEnvironmentInput = z.input<typeof updateRequest>;

/** Environments of a project; every method returns the environment. */
export interface EnvironmentsApi {
  /** `POST /api/v1/workspace/{projectId}/environments`; a duplicate slug is a 400. */
  create(projectId: string, input: CreateEnvironmentInput, options?: CallOptions): Promise<Environment>;
  /** `GET /api/v1/workspace/{projectId}/environments/{environmentId}`. */
  get(projectId: string, environmentId: string, options?: CallOptions): Promise<Environment>;
  /** `PATCH /api/v1/workspace/{projectId}/environments/{environmentId}`. */
  update(
    projectId: string,
    environmentId: string,
    input: UpdateEnvironmentInput,
    options?: CallOptions,
  ): Promise<Environment>;
  /** `DELETE /api/v1/workspace/{projectId}/environments/{environmentId}`. */
  delete(projectId: string, environmentId: string, options?: CallOptions): Promise<Environment>;
}

export function environmentsApi(http: HttpClient): EnvironmentsApi {
  const base = (projectId: string, op: string): string =>
    `/api/v1/workspace/${seg(projectId, 'projectId', op)}/environments`;
  const one = (projectId: string, envId: string, op: string): string =>
    `${base(projectId, op)}/${seg(envId, 'environmentId', op)}`;
  const schema = envelope('environment', environmentSchema);
  return {
    create: async (projectId, input, options) => {
      const op = 'environments.create';
      const body = validateRequest(createRequest, input, op);
      return http.call({ operation: op, method: 'POST', path: base(projectId, op), body }, schema, options);
    },
    get: async (projectId, environmentId, options) => {
      const op = 'environments.get';
      return http.call(
        { operation: op, method: 'GET', path: one(projectId, environmentId, op) },
        schema,
        options,
      );
    },
    update: async (projectId, environmentId, input, options) => {
      const op = 'environments.update';
      const body = validateRequest(updateRequest, input, op);
      const path = one(projectId, environmentId, op);
      return http.call({ operation: op, method: 'PATCH', path, body }, schema, options);
    },
    delete: async (projectId, environmentId, options) => {
      const op = 'environments.delete';
      return http.call(
        { operation: op, method: 'DELETE', path: one(projectId, environmentId, op) },
        schema,
        options,
      );
    },
  };
}
