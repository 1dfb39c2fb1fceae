// One-time instance bootstrap (`POST /api/v1/admin/bootstrap`, no authentication).
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { validateRequest } from './validate.ts';

const bootstrapRequest = z.object({
  email: z.email().trim(),
  password: z.string().min(1),
  organization: z.string().trim().min(1),
});
export type BootstrapInput = z.input<typeof bootstrapRequest>;

/** The bootstrap result; `identity.credentials.token` is an org-admin access token. */
export const bootstrapResultSchema = z.object({
  message: z.string(),
  user: z.object({
    id: z.string(),
    email: z.string(),
    username: z.string().optional(),
    firstName: z.string().nullish(),
    lastName: z.string().nullish(),
    superAdmin: z.boolean().optional(),
  }),
  organization: z.object({ id: z.string().min(1), name: z.string(), slug: z.string() }),
  identity: z.object({
    id: z.string().min(1),
    name: z.string(),
    credentials: z.object({ token: z.string().min(1) }),
  }),
});
export type BootstrapResult = z.output<typeof bootstrapResultSchema>;

/** Instance administration. */
export interface AdminApi {
  /** Works exactly once per instance; afterwards the service answers 400. */
  bootstrap(input: BootstrapInput, options?: CallOptions): Promise<BootstrapResult>;
}

export function adminApi(http: HttpClient): AdminApi {
  return {
    bootstrap: async (input, options) => {
      const op = 'admin.bootstrap';
      const body = validateRequest(bootstrapRequest, input, op);
      const spec = {
        operation: op,
        method: 'POST',
        path: '/api/v1/admin/bootstrap',
        body,
        auth: false,
      } as const;
      return http.call(spec, bootstrapResultSchema, options);
    },
  };
}
