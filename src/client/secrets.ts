// Raw (plaintext) secrets, v3: list, get, create, update, delete by name, and the batch
// create / update / delete routes. Batch writes are all-or-nothing on the service side.
import { z } from 'zod';
import { ApprovalRequiredError } from './errors.ts';
import type { CallOptions, HttpClient } from './http.ts';
import * as s from './secret-schemas.ts';
import type { Secret, SecretApproval } from './secret-schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

export type { Secret, SecretApproval } from './secret-schemas.ts';
export type ListSecretsQuery = z.input<typeof s.listQuery>;
export type GetSecretQuery = z.input<typeof s.getQuery>;
export type CreateSecretInput = z.input<typeof s.createBody>;
export type UpdateSecretInput = z.input<typeof s.updateBody>;
export type DeleteSecretInput = z.input<typeof s.deleteBody>;
export type BatchCreateSecretsInput = z.input<typeof s.batchCreateBody>;
export type BatchUpdateSecretsInput = z.input<typeof s.batchUpdateBody>;
export type BatchDeleteSecretsInput = z.input<typeof s.batchDeleteBody>;

const listResponse = z.object({
  secrets: z.array(s.secretSchema),
  imports: z
    .array(z.object({ secretPath: z.string(), environment: z.string(), secrets: z.array(s.secretSchema) }))
    .optional(),
});
export type SecretList = z.output<typeof listResponse>;

/**
 * Secret operations. Writes throw `ApprovalRequiredError` when an approval policy turned the
 * write into a change request instead of applying it.
 */
export interface SecretsApi {
  /** `GET /api/v3/secrets/raw`: the whole folder (optionally recursive, with imports). */
  list(query: ListSecretsQuery, options?: CallOptions): Promise<SecretList>;
  /** `GET /api/v3/secrets/raw/{secretName}`. */
  get(secretName: string, query: GetSecretQuery, options?: CallOptions): Promise<Secret>;
  /** `POST /api/v3/secrets/raw/{secretName}`. */
  create(secretName: string, input: CreateSecretInput, options?: CallOptions): Promise<Secret>;
  /** `PATCH /api/v3/secrets/raw/{secretName}`. */
  update(secretName: string, input: UpdateSecretInput, options?: CallOptions): Promise<Secret>;
  /** `DELETE /api/v3/secrets/raw/{secretName}`. */
  delete(secretName: string, input: DeleteSecretInput, options?: CallOptions): Promise<Secret>;
  /** `POST /api/v3/secrets/batch/raw`. */
  batchCreate(input: BatchCreateSecretsInput, options?: CallOptions): Promise<Secret[]>;
  /** `PATCH /api/v3/secrets/batch/raw`; `mode` is `failOnNotFound` (default), `upsert` or `ignore`. */
  batchUpdate(input: BatchUpdateSecretsInput, options?: CallOptions): Promise<Secret[]>;
  /** `DELETE /api/v3/secrets/batch/raw`; all keys must exist (else 404, nothing deleted). */
  batchDelete(input: BatchDeleteSecretsInput, options?: CallOptions): Promise<Secret[]>;
}

const RAW = '/api/v3/secrets/raw';
const BATCH = '/api/v3/secrets/batch/raw';

export function secretsApi(http: HttpClient): SecretsApi {
  const named = (name: string, op: string): string => {
    validateRequest(s.secretName, name, op);
    return `${RAW}/${seg(name, 'secretName', op)}`;
  };
  type Write = { operation: string; method: 'POST' | 'PATCH' | 'DELETE'; path: string; body: unknown };
  const single = async (spec: Write, options?: CallOptions) =>
    unwrap(await http.call(spec, s.singleWriteResponse, options), spec.operation);
  const batch = async (spec: Omit<Write, 'path'>, options?: CallOptions) =>
    unwrap(await http.call({ ...spec, path: BATCH }, s.batchWriteResponse, options), spec.operation);
  return {
    list: async (query, options) => {
      const op = 'secrets.list';
      const q = toQuery(validateRequest(s.listQuery, query, op));
      return http.call({ operation: op, method: 'GET', path: RAW, query: q }, listResponse, options);
    },
    get: async (secretName, query, options) => {
      const op = 'secrets.get';
      const q = toQuery(validateRequest(s.getQuery, query, op));
      const spec = { operation: op, method: 'GET', path: named(secretName, op), query: q } as const;
      return http.call(spec, envelope('secret', s.secretSchema), options);
    },
    create: async (secretName, input, options) => {
      const op = 'secrets.create';
      const body = validateRequest(s.createBody, input, op);
      return single({ operation: op, method: 'POST', path: named(secretName, op), body }, options);
    },
    update: async (secretName, input, options) => {
      const op = 'secrets.update';
      const body = validateRequest(s.updateBody, input, op);
      return single({ operation: op, method: 'PATCH', path: named(secretName, op), body }, options);
    },
    delete: async (secretName, input, options) => {
      const op = 'secrets.delete';
      const body = validateRequest(s.deleteBody, input, op);
      return single({ operation: op, method: 'DELETE', path: named(secretName, op), body }, options);
    },
    batchCreate: async (input, options) => {
      const op = 'secrets.batchCreate';
      return batch(
        { operation: op, method: 'POST', body: validateRequest(s.batchCreateBody, input, op) },
        options,
      );
    },
    batchUpdate: async (input, options) => {
      const op = 'secrets.batchUpdate';
      return batch(
        { operation: op, method: 'PATCH', body: validateRequest(s.batchUpdateBody, input, op) },
        options,
      );
    },
    batchDelete: async (input, options) => {
      const op = 'secrets.batchDelete';
      return batch(
        { operation: op, method: 'DELETE', body: validateRequest(s.batchDeleteBody, input, op) },
        options,
      );
    },
  };
}

function unwrap<T>(res: { secret: T } | { secrets: T } | { approval: SecretApproval }, operation: string): T {
  if ('approval' in res) {
    throw new ApprovalRequiredError({
      operation,
      status: 200,
      message: `the write awaits approval (request ${res.approval.id})`,
      approvalId: res.approval.id,
    });
  }
  return 'secret' in res ? res.secret : res.secrets;
}

/** GET routes take the project slug as `workspaceSlug` (bodies call it `projectSlug`). */
function toQuery(
  q: Record<string, string | number | boolean | undefined>,
): Record<string, string | number | boolean | undefined> {
  const { projectSlug, ...rest } = q;
  return projectSlug === undefined ? rest : { ...rest, workspaceSlug: projectSlug };
}
