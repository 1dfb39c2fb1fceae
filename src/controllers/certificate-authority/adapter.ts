/**
 * CertificateAuthority adapter on the service's deprecated `/api/v1/pki/ca` endpoints.
 *
 * - observe: `GET /api/v1/pki/ca/{id}` and, once the CA has a certificate, its certificate and
 *   chain for the output Secret. The endpoints have no project CA list, so a CA is adopted only
 *   through the `coffer.dev/external-id` annotation, and a create interrupted before its id was
 *   recorded stops with `CreateIncomplete` for a human to decide (no duplicate CA);
 * - create: `POST /api/v1/pki/ca` with the project's slug, then `enabled: false` applied;
 * - update: `PATCH` status (active/disabled) and `requireTemplateForIssuance`, the only fields the
 *   service can change (everything else is immutable in the CRD);
 * - delete: `DELETE /api/v1/pki/ca/{id}`.
 */
import type { CertificateAuthoritySpec } from '../../api/v1alpha1/index.ts';
import type { ServiceClient } from '../../client/index.ts';
import { CREATE_INCOMPLETE } from '../../managed/ownership.ts';
import type { ExternalClient, ManagedAdapter } from '../../managed/external-client.ts';
import { TerminalError } from '../../runtime/errors.ts';
import { ANNOTATION_CREATE_PENDING, ANNOTATION_EXTERNAL_ID } from '../../runtime/object-meta.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { certificateOf, checkIdentity, getCa } from './lookup.ts';
import {
  createRequest,
  describeUpdate,
  outputSecret,
  statusOf,
  updateRequest,
  type CaStatusFields,
} from './mapping.ts';
import { caNotReady } from './ready-check.ts';
import { projectOf, resolveProject, type CaRefs } from './references.ts';

type Client = ExternalClient<CertificateAuthoritySpec, CaRefs, CaStatusFields>;

/** Said once per CertificateAuthority, when it is created: the service marks these endpoints deprecated. */
const deprecationNotice = {
  type: 'Warning',
  reason: 'DeprecatedEndpoint',
  message:
    'created through the service’s /api/v1/pki/ca endpoints, which it marks deprecated in favour of ' +
    'its certificate-manager CA API',
} as const;

function caClient(client: ServiceClient, services: OperatorServices): Client {
  return {
    async observe(obj, ctx) {
      if (!ctx.externalId) return { exists: false };
      const ca = await getCa(client, ctx.externalId, ctx.signal);
      if (!ca) return { exists: false };
      checkIdentity(obj.spec, ca, projectOf(ctx.references).projectId);
      const cert = await certificateOf(client, ca, ctx.signal);
      const diff = describeUpdate(updateRequest(obj.spec, ca));
      const secretData = outputSecret(obj.spec, cert);
      return {
        exists: true,
        upToDate: diff === undefined,
        externalId: ca.id,
        status: statusOf(ca),
        ...(secretData ? { secretData } : {}),
        ...(diff ? { diff } : {}),
      };
    },
    async create(obj, ctx) {
      const { projectSlug } = projectOf(ctx.references);
      const request = createRequest(obj.spec, projectSlug, services.now());
      let ca = await client.pki.createCa(request, { signal: ctx.signal });
      const rest = updateRequest(obj.spec, ca);
      if (describeUpdate(rest)) ca = await client.pki.updateCa(ca.id, rest, { signal: ctx.signal });
      const secretData = outputSecret(obj.spec, await certificateOf(client, ca, ctx.signal));
      return {
        externalId: ca.id,
        status: statusOf(ca),
        ...(secretData ? { secretData } : {}),
        events: [deprecationNotice],
      };
    },
    async update(obj, ctx) {
      const ca = await client.pki.getCa(ctx.externalId, { signal: ctx.signal });
      const request = updateRequest(obj.spec, ca);
      if (!describeUpdate(request)) return { status: statusOf(ca) };
      return { status: statusOf(await client.pki.updateCa(ca.id, request, { signal: ctx.signal })) };
    },
    async delete(_obj, ctx) {
      await client.pki.deleteCa(ctx.externalId, { signal: ctx.signal });
    },
    findByNaturalKey() {
      // No list endpoint: what the interrupted create made cannot be found, so a human decides.
      return Promise.reject(
        new TerminalError(
          CREATE_INCOMPLETE,
          'a create was interrupted and the certificate-authority endpoints cannot list the project’s CAs to ' +
            `find what it made: check the project in the service, then set ${ANNOTATION_EXTERNAL_ID} to the ` +
            `CA's id, or remove the ${ANNOTATION_CREATE_PENDING} annotation to create a new CA`,
        ),
      );
    },
    readyCheck: (_obj, status) => caNotReady(status),
  };
}

/** The CertificateAuthority adapter on the operator's services. */
export function certificateAuthorityAdapter(
  services: OperatorServices,
): ManagedAdapter<CertificateAuthoritySpec, CaRefs, CaStatusFields> {
  return {
    resolveReferences: (obj, context) => resolveProject(services, obj, context),
    async connect(obj) {
      const connection = await services.connectionFor(obj);
      return caClient(connection.client, services);
    },
  };
}
