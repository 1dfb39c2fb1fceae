// Project templates: create, get, list, update, delete (`/api/v1/project-templates`).
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { isPredefinedRoleSlug } from './roles.ts';
import { optString, permissionRuleRequest, permissionRuleResponse, slug, timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** A project template. */
export const projectTemplateSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  description: optString,
  type: z.string(),
  orgId: z.string().optional(),
  roles: z
    .array(z.object({ name: z.string(), slug: z.string(), permissions: z.array(permissionRuleResponse) }))
    .default([]),
  environments: z
    .array(z.object({ name: z.string(), slug: z.string(), position: z.number().int() }))
    .nullish(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type ProjectTemplate = z.output<typeof projectTemplateSchema>;

const roleRequest = z.object({
  name: z.string().min(1),
  slug: slug(64).refine((v) => !isPredefinedRoleSlug(v), 'role slug is reserved'),
  permissions: z.array(permissionRuleRequest),
});
const environmentRequest = z.object({
  name: z.string().min(1),
  slug: slug(64),
  position: z.number().int().min(1),
});

/** Positions must be exactly 1..n; names and slugs unique. */
function environmentsValid(
  envs: { name: string; slug: string; position: number }[] | null | undefined,
): boolean {
  if (!envs) return true;
  const positions = envs.map((e) => e.position).sort((a, b) => a - b);
  return (
    positions.every((p, i) => p === i + 1) &&
    new Set(envs.map((e) => e.slug)).size === envs.length &&
    new Set(envs.map((e) => e.name)).size === envs.length
  );
}

const fields = {
  name: slug(64).refine((v) => v !== 'default', 'the name "default" is reserved'),
  description: z.string().max(256).optional(),
  roles: z
    .array(roleRequest)
    .refine((r) => new Set(r.map((x) => x.slug)).size === r.length, 'role slugs must be unique')
    .optional(),
  environments: z
    .array(environmentRequest)
    .nullish()
    .refine(environmentsValid, 'environment names and slugs must be unique and positions exactly 1..n'),
};
const createRequest = z.object({ ...fields, type: z.string().min(1) });
const updateRequest = z.object(fields).partial();
export type CreateProjectTemplateInput = z.input<typeof createRequest>;
export type UpdateProjectTemplateInput = z.input<typeof updateRequest>;

/** Project templates of the organisation. */
export interface ProjectTemplatesApi {
  create(input: CreateProjectTemplateInput, options?: CallOptions): Promise<ProjectTemplate>;
  /** The id must be a UUID (else the service answers 422). */
  get(templateId: string, options?: CallOptions): Promise<ProjectTemplate>;
  /** Includes the built-in `default` template. */
  list(query?: { type?: string }, options?: CallOptions): Promise<ProjectTemplate[]>;
  update(
    templateId: string,
    input: UpdateProjectTemplateInput,
    options?: CallOptions,
  ): Promise<ProjectTemplate>;
  delete(templateId: string, options?: CallOptions): Promise<ProjectTemplate>;
}

const BASE = '/api/v1/project-templates';

export function projectTemplatesApi(http: HttpClient): ProjectTemplatesApi {
  const one = (id: string, op: string): string => `${BASE}/${seg(id, 'templateId', op)}`;
  const single = envelope('projectTemplate', projectTemplateSchema);
  return {
    create: async (input, options) => {
      const op = 'projectTemplates.create';
      const body = validateRequest(createRequest, input, op);
      return http.call({ operation: op, method: 'POST', path: BASE, body }, single, options);
    },
    get: async (templateId, options) => {
      const op = 'projectTemplates.get';
      return http.call({ operation: op, method: 'GET', path: one(templateId, op) }, single, options);
    },
    list: async (query, options) => {
      const op = 'projectTemplates.list';
      const spec = { operation: op, method: 'GET', path: BASE, query } as const;
      return http.call(spec, envelope('projectTemplates', z.array(projectTemplateSchema)), options);
    },
    update: async (templateId, input, options) => {
      const op = 'projectTemplates.update';
      const body = validateRequest(updateRequest, input, op);
      return http.call({ operation: op, method: 'PATCH', path: one(templateId, op), body }, single, options);
    },
    delete: async (templateId, options) => {
      const op = 'projectTemplates.delete';
      return http.call({ operation: op, method: 'DELETE', path: one(templateId, op) }, single, options);
    },
  };
}
