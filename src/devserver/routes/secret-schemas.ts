/**
 * Request pieces shared by the raw secret routes.
 */
import { z } from 'zod';

/**
 * An optional project id or slug where an empty (or blank) value counts as absent: the service
 * picks the project by truthiness (`extractProjectIdFromSlug`), so real clients send the unused
 * one empty, e.g. the Go SDK's `workspaceId=<id>&workspaceSlug=`.
 */
const optionalProjectKey = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
  z.string().trim().min(1).optional(),
);

/** The project may be named by id or slug, under either of the names the routes accept. */
export const projectRef = z.object({
  workspaceId: optionalProjectKey,
  projectId: optionalProjectKey,
  workspaceSlug: optionalProjectKey,
  projectSlug: optionalProjectKey,
});

/** A secret value (the store normalises it: trimmed, one trailing newline kept). */
export const valueSchema = z.string();

/** `secretMetadata` entries. */
export const metadataSchema = z.array(
  z.object({
    key: z.string().trim().min(1),
    value: z.string().default(''),
    isEncrypted: z.boolean().default(false),
  }),
);
