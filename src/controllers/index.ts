/**
 * The registry of kind controllers the operator runs (`src/operator/assemble.ts`).
 *
 * `kindControllers`: kinds that mirror a service object, on the generic managed reconciler.
 * Adding one = one line here (keep the order of `allKinds`: dependencies first).
 *
 * `directKindControllers`: kinds that mirror no service object (connections and Bootstrap), on
 * the small direct reconciler (`src/managed/direct/`).
 */
import type { DirectKindController } from '../managed/direct/kind.ts';
import { additionalPrivilegeController } from './additional-privilege/index.ts';
import { bootstrapController } from './bootstrap/index.ts';
import { certificateAuthorityController } from './certificate-authority/index.ts';
import { clusterConnectionController } from './cluster-connection/index.ts';
import { connectionController } from './connection/index.ts';
import { identityAuthController } from './identity-auth/index.ts';
import { identityController } from './identity/index.ts';
import { integrationController } from './integration/index.ts';
import type { KindController } from './kind-controller.ts';
import { projectController } from './project/index.ts';
import { projectRoleController } from './project-role/index.ts';
import { projectTemplateController } from './project-template/index.ts';
import { secretBatchController } from './secret-batch/index.ts';

export const kindControllers: readonly KindController[] = [
  projectController,
  identityController,
  identityAuthController,
  additionalPrivilegeController,
  projectTemplateController,
  projectRoleController,
  secretBatchController,
  integrationController,
  certificateAuthorityController,
];

export const directKindControllers: readonly DirectKindController[] = [
  connectionController,
  clusterConnectionController,
  bootstrapController,
];
