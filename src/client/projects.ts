// Projects (called workspaces in the paths): create (v2), get/update/delete (v1).
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { optString, slug, timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** A project as returned by the service; only `id`, `name` and `slug` are required. */
export const projectSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  slug: z.string(),
  description: optString,
  type: optString,
  orgId: z.string().optional(),
  autoCapitalization: z.boolean().nullish(),
  hasDeleteProtection: z.boolean().nullish(),
  secretSharing: z.boolean().nullish(),
  showSnapshotsLegacy: z.boolean().nullish(),
  defaultProduct: optString,
  secretDetectionIgnoreValues: z.array(z.string()).nullish(),
  environments: z.array(z.object({ id: z.string(), name: z.string(), slug: z.string() })).optional(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type Project = z.output<typeof projectSchema>;

const projectTypes = ['secret-manager', 'cert-manager', 'kms', 'ssh', 'secret-scanning', 'pam'] as const;

const createRequest = z.object({
  projectName: z.string().trim().min(1).max(64),
  projectDescription: z.string().max(1024).optional(),
  slug: slug(36, 5).optional(),
  kmsKeyId: z.string().min(1).optional(),
  template: z.string().min(1).optional(),
  type: z.enum(projectTypes).optional(),
  shouldCreateDefaultEnvs: z.boolean().optional(),
  hasDeleteProtection: z.boolean().optional(),
});
export type CreateProjectInput = z.input<typeof createRequest>;

const updateRequest = z.object({
  name: z.string().trim().min(1).max(64).optional(),
  description: z.string().max(256).optional(),
  autoCapitalization: z.boolean().optional(),
  hasDeleteProtection: z.boolean().optional(),
  slug: z
    .string()
    .max(64)
    .regex(
      /^[a-z0-9]+(?:[_-][a-z0-9]+)*$/,
      'can only contain lowercase letters, numbers, hyphens and underscores',
    )
    .optional(),
  secretSharing: z.boolean().optional(),
  showSnapshotsLegacy: z.boolean().optional(),
  defaultProduct: z.string().min(1).optional(),
  secretDetectionIgnoreValues: z.array(z.string()).optional(),
});
export type UpdateProjectInput = z.input<typeof updateRequest>;

/** Project lifecycle. */
export interface ProjectsApi {
  /** `POST /api/v2/workspace`. */
  create(input: CreateProjectInput, options?: CallOptions): Promise<Project>;
  /** `GET /api/v1/workspace/{projectId}`. */
  get(projectId: string, options?: CallOptions): Promise<Project>;
  /** `GET /api/v2/workspace/{slug}`: the project with this slug (the bare object, no envelope). */
  getBySlug(slug: string, options?: CallOptions): Promise<Project>;
  /** `PATCH /api/v1/workspace/{projectId}`; only the fields present are changed. */
  update(projectId: string, input: UpdateProjectInput, options?: CallOptions): Promise<Project>;
  /** `DELETE /api/v1/workspace/{projectId}`. */
  delete(projectId: string, options?: CallOptions): Promise<Project>;
}

export function projectsApi(http: HttpClient): ProjectsApi {
  const path = (id: string, op: string): string => `/api/v1/workspace/${seg(id, 'projectId', op)}`;
  return {
    create: async (input, options) => {
      const body = validateRequest(createRequest, input, 'projects.create');
      const spec = { operation: 'projects.create', method: 'POST', path: '/api/v2/workspace', body } as const;
      return http.call(spec, envelope('project', projectSchema), options);
    },
    get: async (projectId, options) => {
      const spec = {
        operation: 'projects.get',
        method: 'GET',
        path: path(projectId, 'projects.get'),
      } as const;
      return http.call(spec, envelope('workspace', projectSchema), options);
    },
    getBySlug: async (projectSlug, options) => {
      const op = 'projects.getBySlug';
      const spec = {
        operation: op,
        method: 'GET',
        path: `/api/v2/workspace/${seg(projectSlug, 'slug', op)}`,
      } as const;
      return http.call(spec, projectSchema, options);
    },
    update: async (projectId, input, options) => {
      const op = 'projects.update';
      const body = validateRequest(updateRequest, input, op);
      const spec = { operation: op, method: 'PATCH', path: path(projectId, op), body } as const;
      return http.call(spec, envelope('workspace', projectSchema), options);
    },
    delete: async (projectId, options) => {
      const op = 'projects.delete';
      const spec = { operation: op, method: 'DELETE', path: path(projectId, op) } as const;
      return http.call(spec, envelope('workspace', projectSchema), options);
    },
  };
}
