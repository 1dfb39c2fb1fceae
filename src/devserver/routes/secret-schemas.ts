/**
 * Request pieces shared by the raw secret routes.
 */
import { z } from 'zod';

/** The project may be named by id or slug, under either of the names the routes accept. */
export const projectRef = z.object({
  workspaceId: z.string().trim().min(1).optional(),
  projectId: z.string().trim().min(1).optional(),
  workspaceSlug: z.string().trim().min(1).optional(),
  projectSlug: z.string().trim().min(1).optional(),
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
