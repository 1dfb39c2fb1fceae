// Schemas of the raw (plaintext) v3 secrets API. Secret values travel only in bodies and
// responses; they are never logged and never appear in errors.
import { z } from 'zod';
import { optString, timestamp } from './schemas.ts';

/** `SecretNameSchema`: trimmed, non-empty, without `:` or `/`. */
export const secretName = z
  .string()
  .trim()
  .min(1)
  .refine((v) => !v.includes(':') && !v.includes('/'), 'Secret name cannot contain colon or forward slash.');

/** A secret as returned by the raw API. */
export const secretSchema = z.object({
  id: z.string().min(1),
  secretKey: z.string(),
  secretValue: z.string(),
  version: z.number().int(),
  type: z.string().optional(),
  environment: z.string().optional(),
  workspace: z.string().optional(),
  secretPath: z.string().optional(),
  secretComment: optString,
  skipMultilineEncoding: z.boolean().nullish(),
  secretReminderNote: optString,
  secretReminderRepeatDays: z.number().int().nullish(),
  secretValueHidden: z.boolean().optional(),
  secretMetadata: z.array(z.object({ key: z.string(), value: z.string().optional() })).nullish(),
  tags: z.array(z.object({ id: z.string(), slug: z.string() })).nullish(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type Secret = z.output<typeof secretSchema>;

/** The change request created instead of a write when an approval policy covers the folder. */
export const approvalSchema = z.object({ id: z.string(), status: z.string().optional(), slug: optString });
export type SecretApproval = z.output<typeof approvalSchema>;

/** The project is addressed by id (`workspaceId`) or by slug (`projectSlug`). */
export const projectRef = {
  workspaceId: z.string().min(1).optional(),
  projectSlug: z.string().min(1).optional(),
};

/** Rejects inputs that name neither or both of `workspaceId` and `projectSlug`. */
export function oneProjectRef(v: {
  workspaceId?: string | undefined;
  projectSlug?: string | undefined;
}): boolean {
  return (v.workspaceId === undefined) !== (v.projectSlug === undefined);
}
export const PROJECT_REF_MESSAGE = 'exactly one of workspaceId and projectSlug is required';

const scopeFields = {
  ...projectRef,
  environment: z.string().min(1),
  secretPath: z.string().min(1).optional(),
};

const metadataRequest = z.array(z.object({ key: z.string().min(1), value: z.string().optional() }));
const secretType = z.enum(['shared', 'personal']);

/** Query of list. */
export const listQuery = z
  .object({
    ...scopeFields,
    viewSecretValue: z.boolean().optional(),
    expandSecretReferences: z.boolean().optional(),
    recursive: z.boolean().optional(),
    include_imports: z.boolean().optional(),
    tagSlugs: z.string().optional(),
  })
  .refine(oneProjectRef, PROJECT_REF_MESSAGE);

/** Query of get-by-name. */
export const getQuery = z
  .object({ ...scopeFields, version: z.number().int().min(1).optional(), type: secretType.optional() })
  .refine(oneProjectRef, PROJECT_REF_MESSAGE);

const writeFields = {
  secretComment: z.string().optional(),
  skipMultilineEncoding: z.boolean().optional(),
  tagIds: z.array(z.string()).optional(),
  secretMetadata: metadataRequest.optional(),
  secretReminderNote: z.string().max(1024).nullish(),
  secretReminderRepeatDays: z.number().int().nullish(),
};

export const createBody = z
  .object({ ...scopeFields, ...writeFields, secretValue: z.string(), type: secretType.optional() })
  .refine(oneProjectRef, PROJECT_REF_MESSAGE);

export const updateBody = z
  .object({
    ...scopeFields,
    ...writeFields,
    secretValue: z.string().optional(),
    newSecretName: secretName.optional(),
    type: secretType.optional(),
  })
  .refine(oneProjectRef, PROJECT_REF_MESSAGE);

export const deleteBody = z
  .object({ ...scopeFields, type: secretType.optional() })
  .refine(oneProjectRef, PROJECT_REF_MESSAGE);

export const batchCreateBody = z
  .object({
    ...scopeFields,
    secrets: z.array(z.object({ secretKey: secretName, secretValue: z.string(), ...writeFields })).min(1),
  })
  .refine(oneProjectRef, PROJECT_REF_MESSAGE);

/** Items of the batch update: every field but the key is optional; omitted fields stay unchanged. */
export const batchUpdateBody = z
  .object({
    ...scopeFields,
    mode: z.enum(['failOnNotFound', 'upsert', 'ignore']).optional(),
    secrets: z
      .array(
        z.object({
          secretKey: secretName,
          secretValue: z.string().optional(),
          secretPath: z.string().min(1).optional(),
          newSecretName: secretName.optional(),
          ...writeFields,
        }),
      )
      .min(1),
  })
  .refine(oneProjectRef, PROJECT_REF_MESSAGE);

export const batchDeleteBody = z
  .object({
    ...scopeFields,
    secrets: z.array(z.object({ secretKey: secretName, type: secretType.optional() })).min(1),
  })
  .refine(oneProjectRef, PROJECT_REF_MESSAGE);

/** A write answers with the secret(s) or, under an approval policy, with `{approval}`. */
export const singleWriteResponse = z.union([
  z.object({ secret: secretSchema }),
  z.object({ approval: approvalSchema }),
]);
export const batchWriteResponse = z.union([
  z.object({ secrets: z.array(secretSchema) }),
  z.object({ approval: approvalSchema }),
]);
