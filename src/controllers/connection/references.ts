/**
 * The references of Connection and ClusterConnection: the Identity a Kubernetes, JWT or OIDC
 * login names by `identityRef` (instead of its id). Declared as data: they drive the dependency
 * watch (the Identity becoming Ready, getting or changing its id reconciles the connection at
 * once), the sandbox and the docs. A Connection's Identity is in its own namespace; a
 * ClusterConnection's reference names the namespace (`identityRef.namespace`).
 *
 * These are the registry's only forward references (`ReferenceDeclaration.forward`): an Identity
 * is itself managed through a connection, so the connection kinds come first.
 */
import type { ReferenceDeclaration } from '../registration.ts';

const loginMethods = [
  ['kubernetes', 'Kubernetes'],
  ['jwt', 'JWT'],
  ['oidc', 'OIDC'],
] as const;

/** `spec.auth.{kubernetes,jwt,oidc}.identityRef` → Identity. */
export const connectionReferences: readonly ReferenceDeclaration[] = loginMethods.map(
  ([method, label]): ReferenceDeclaration => ({
    path: `spec.auth.${method}.identityRef`,
    kinds: ['Identity'],
    needs: 'Ready',
    watch: true,
    forward: true,
    purpose: `the machine identity ${label} auth logs in as (its status.id)`,
  }),
);
