/**
 * The condition reasons of every kind: the generic table plus the kind's own, declared in its
 * folder (`<kind>/reasons.ts`). The Argo CD health checks and the docs' reason tables are
 * generated from this map (`npm run generate`). Connection and ClusterConnection run the same
 * sync, so they share the Connection table.
 */
import { commonReasons } from '../runtime/common-reasons.ts';
import type { ReasonClass, ReasonCondition, ReasonDeclaration, ReasonTable } from '../runtime/reasons.ts';
import { additionalPrivilegeReasons } from './additional-privilege/reasons.ts';
import { bootstrapReasons } from './bootstrap/reasons.ts';
import { certificateAuthorityReasons } from './certificate-authority/reasons.ts';
import { connectionReasons } from './connection/reasons.ts';
import { identityAuthReasons } from './identity-auth/reasons.ts';
import { identityReasons } from './identity/reasons.ts';
import { integrationReasons } from './integration/reasons.ts';
import { projectRoleReasons } from './project-role/reasons.ts';
import { projectTemplateReasons } from './project-template/reasons.ts';
import { projectReasons } from './project/reasons.ts';
import { secretBatchReasons } from './secret-batch/reasons.ts';
import { workloadSecretReasons } from './workload-secret/reasons.ts';

/** Each kind's own reason table (the generic table applies to every kind besides). */
export const kindReasonTables = {
  Connection: connectionReasons,
  ClusterConnection: connectionReasons,
  Bootstrap: bootstrapReasons,
  Project: projectReasons,
  ProjectRole: projectRoleReasons,
  ProjectTemplate: projectTemplateReasons,
  Identity: identityReasons,
  IdentityAuth: identityAuthReasons,
  AdditionalPrivilege: additionalPrivilegeReasons,
  SecretBatch: secretBatchReasons,
  Integration: integrationReasons,
  CertificateAuthority: certificateAuthorityReasons,
  WorkloadSecret: workloadSecretReasons,
} as const satisfies Readonly<Record<string, ReasonTable>>;

/** A kind with a reason table (every coffer.dev kind; a unit test holds this). */
export type KindWithReasons = keyof typeof kindReasonTables;

/** One reason as a kind can report it. */
export interface KindReason {
  readonly name: string;
  readonly class: ReasonClass;
  readonly conditions: readonly ReasonCondition[];
  readonly description: string;
  /** `generic`, or the kind that declares it. */
  readonly scope: string;
}

function rowsOf(table: ReasonTable): KindReason[] {
  const declarations: Readonly<Record<string, ReasonDeclaration>> = table.declarations;
  return Object.entries(declarations).map(([name, declared]) => ({ name, scope: table.scope, ...declared }));
}

/** Every reason `kind` can report: the generic ones, then its own, in declaration order. */
export function reasonsOfKind(kind: KindWithReasons): readonly KindReason[] {
  return [...rowsOf(commonReasons), ...rowsOf(kindReasonTables[kind])];
}

/** The generic table, then each distinct kind table once (Connection's serves two kinds). */
export function allReasonTables(): readonly ReasonTable[] {
  return [commonReasons, ...new Set<ReasonTable>(Object.values(kindReasonTables))];
}
