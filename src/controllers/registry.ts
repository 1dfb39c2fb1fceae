/**
 * The kind registry: every kind of the coffer.dev group, one line each, in dependency order
 * (connections first, then each kind after the kinds it references). Each kind's folder exports
 * its {@link KindRegistration}; the operator, the sandbox, the tests and `npm run generate` read
 * this list and nothing else.
 */
import type { KindDefinition } from '../api/v1alpha1/kind.ts';
import { additionalPrivilegeRegistration } from './additional-privilege/index.ts';
import { bootstrapRegistration } from './bootstrap/index.ts';
import { certificateAuthorityRegistration } from './certificate-authority/index.ts';
import { clusterConnectionRegistration } from './cluster-connection/index.ts';
import { connectionRegistration } from './connection/index.ts';
import { dynamicSecretRegistration } from './dynamic-secret/index.ts';
import { identityAuthRegistration } from './identity-auth/index.ts';
import { identityRegistration } from './identity/index.ts';
import { integrationRegistration } from './integration/index.ts';
import { projectRoleRegistration } from './project-role/index.ts';
import { projectTemplateRegistration } from './project-template/index.ts';
import { projectRegistration } from './project/index.ts';
import type { KindRegistration } from './registration.ts';
import { secretBatchRegistration } from './secret-batch/index.ts';
import { workloadSecretRegistration } from './workload-secret/index.ts';

export const kindRegistry: readonly KindRegistration[] = [
  connectionRegistration,
  clusterConnectionRegistration,
  bootstrapRegistration,
  projectTemplateRegistration,
  projectRegistration,
  projectRoleRegistration,
  identityRegistration,
  identityAuthRegistration,
  additionalPrivilegeRegistration,
  secretBatchRegistration,
  integrationRegistration,
  certificateAuthorityRegistration,
  workloadSecretRegistration,
  dynamicSecretRegistration,
];

/** The definitions (schemas and metadata) of every kind, in registry order: what the CRDs are built from. */
export const kindDefinitions: readonly KindDefinition[] = kindRegistry.map((kind) => kind.definition);

/** The registration of a kind by name, or undefined. */
export function findRegistration(kind: string): KindRegistration | undefined {
  return kindRegistry.find((registration) => registration.definition.kind === kind);
}

/** The definition of a kind by name, or undefined. */
export function findKind(kind: string): KindDefinition | undefined {
  return findRegistration(kind)?.definition;
}
