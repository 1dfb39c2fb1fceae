/**
 * Every API route of the devserver, assembled from the route modules.
 */
import type { DevApp } from '../app.ts';
import type { RouteDef } from '../http/types.ts';
import { authMethodRoutes } from '../auth/routes/auth-methods.ts';
import { tokenRoutes } from '../auth/routes/tokens.ts';
import { awsLoginRoutes } from '../auth/routes/aws-login.ts';
import { jwtLoginRoutes } from '../auth/routes/jwt-logins.ts';
import { kubernetesLoginRoutes } from '../auth/routes/kubernetes-login.ts';
import { tlsCertLoginRoutes } from '../auth/routes/tls-cert-login.ts';
import { universalAuthRoutes } from '../auth/routes/universal-auth.ts';
import { bootstrapRoutes } from './bootstrap.ts';
import { certManagerCaRoutes } from './cert-manager-ca.ts';
import { dynamicSecretLeaseRoutes } from './dynamic-secret-leases.ts';
import { dynamicSecretRoutes } from './dynamic-secrets.ts';
import { environmentRoutes } from './environments.ts';
import { eventRoutes } from './events.ts';
import { folderLookupRoutes } from './folder-lookup.ts';
import { folderRoutes } from './folders.ts';
import { identityRoutes } from './identities.ts';
import { integrationRoutes } from './integrations.ts';
import { membershipLookupRoutes } from './membership-lookups.ts';
import { membershipRoutes } from './memberships.ts';
import { pkiRoutes } from './pki.ts';
import { privilegeRoutes } from './privileges.ts';
import { projectLookupRoutes } from './project-lookups.ts';
import { projectRoutes } from './projects.ts';
import { roleLookupRoutes } from './role-lookups.ts';
import { roleRoutes } from './roles.ts';
import { secretImportRoutes } from './secret-imports.ts';
import { secretBatchRoutes } from './secrets-batch.ts';
import { secretRoutes } from './secrets.ts';
import { templateRoutes } from './templates.ts';

/** All service API routes (health and admin routes are separate). */
export function apiRoutes(app: DevApp): RouteDef[] {
  return [
    ...bootstrapRoutes(app),
    ...identityRoutes(app),
    ...authMethodRoutes(app),
    ...universalAuthRoutes(app),
    ...jwtLoginRoutes(app),
    ...kubernetesLoginRoutes(app),
    ...tlsCertLoginRoutes(app),
    ...awsLoginRoutes(app),
    ...tokenRoutes(app),
    ...projectRoutes(app),
    ...projectLookupRoutes(app),
    ...environmentRoutes(app),
    ...membershipRoutes(app),
    ...membershipLookupRoutes(app),
    ...privilegeRoutes(app),
    ...roleRoutes(app),
    ...roleLookupRoutes(app),
    ...templateRoutes(app),
    ...integrationRoutes(app),
    ...secretRoutes(app),
    ...secretBatchRoutes(app),
    ...secretImportRoutes(app),
    ...folderRoutes(app),
    ...folderLookupRoutes(app),
    ...eventRoutes(app),
    ...pkiRoutes(app),
    ...certManagerCaRoutes(app),
    ...dynamicSecretRoutes(app),
    ...dynamicSecretLeaseRoutes(app),
  ];
}
