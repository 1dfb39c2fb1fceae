/**
 * The coffer.dev/v1alpha1 API: zod schemas, inferred types and kind metadata of every kind.
 * Every module of this folder is re-exported (the `exports` region, written by `npm run generate`).
 * The kind registry is src/controllers/registry.ts (each definition with its controller, RBAC,
 * references, docs); `allKinds` (kinds.generated.ts, written from it by `npm run generate`) lists
 * its definitions for the floors below the controllers and for the sandbox's start-up path
 * (importing the registry loads every controller, about a second of CPU).
 */
import { allKinds } from './kinds.generated.ts';
import type { KindDefinition } from './kind.ts';

// <!-- generated:exports --> every module of this folder (npm run generate)
export * from './additional-privilege.ts';
export * from './bootstrap.ts';
export * from './certificate-authority.ts';
export * from './cluster-connection.ts';
export * from './common.ts';
export * from './connection-fields.ts';
export * from './connection.ts';
export * from './duration.ts';
export * from './dynamic-secret-provider.ts';
export * from './dynamic-secret.ts';
export * from './identity-auth-kubernetes.ts';
export * from './identity-auth-methods.ts';
export * from './identity-auth.ts';
export * from './identity.ts';
export * from './integration.ts';
export * from './kind.ts';
export * from './permissions.ts';
export * from './project-role.ts';
export * from './project-template.ts';
export * from './project.ts';
export * from './schema-helpers.ts';
export * from './secret-batch.ts';
export * from './service-account-login.ts';
export * from './status.ts';
export * from './time-bounds.ts';
export * from './workload-secret-lease.ts';
export * from './workload-secret.ts';
// <!-- /generated:exports -->

export { allKinds } from './kinds.generated.ts';

/** Name of one of the group's kinds. */
export type KindName = (typeof allKinds)[number]['kind'];

/** The kind definition for a kind name, or undefined. */
export function findKind(kind: string): KindDefinition | undefined {
  return allKinds.find((k) => k.kind === kind);
}
