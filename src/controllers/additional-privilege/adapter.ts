/**
 * AdditionalPrivilege adapter: extra permissions of an identity in one project.
 *
 * - observe: `GET /api/v2/identity-project-additional-privilege/{id}`; without an id, the v1 list
 *   by identity and project slug finds the privilege by slug (the natural key: adoption and
 *   crash recovery), then the v2 GET reads it whole (the v1 list leaves some subjects out);
 * - create (v2 POST), update (v2 PATCH by id, which always takes slug and window), delete (v2);
 * - the identity must be a member of the project (`lookup.ts`: `MembershipMissing`);
 * - a temporary window that has ended is `Ready=False` reason `Expired`; `renew` grants one fresh
 *   window per spec generation (`window.ts`); the adapter asks to look again when the window
 *   starts or ends.
 */
import type { AdditionalPrivilegeSpec } from '../../api/v1alpha1/index.ts';
import type { Privilege, ServiceClient } from '../../client/index.ts';
import type {
  ExternalClient,
  ManagedAdapter,
  ManagedObject,
  Observation,
} from '../../managed/external-client.ts';
import { identityProtection } from '../../managed/external-client.ts';
import { TransientError } from '../../runtime/errors.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { guarded, getPrivilege, matchesBySlug, requireMembership, type LookupScope } from './lookup.ts';
import {
  createRequest,
  driftedFields,
  statusOf,
  updateRequest,
  type PrivilegeStatusFields,
} from './mapping.ts';
import { recordedMembershipId, renewState, windowOf } from './recorded.ts';
import { resolvePrivilegeRefs, scopeOf, type PrivilegeRefs } from './references.ts';
import { renewalDue, untilWindowChange, windowReadiness } from './window.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';

type Status = PrivilegeStatusFields;
type Obj = ManagedObject<AdditionalPrivilegeSpec>;

function privilegeClient(
  client: ServiceClient,
  now: () => Date,
  protectedIdentities: ReadonlyMap<string, string> | undefined,
): ExternalClient<AdditionalPrivilegeSpec, PrivilegeRefs, Status> {
  /** The membership id: as recorded, else asked (which also proves the membership). */
  const membershipId = async (obj: Obj, scope: LookupScope) =>
    recordedMembershipId(obj) ?? (await requireMembership(client, scope)).id;

  async function observed(obj: Obj, scope: LookupScope, privilege: Privilege): Promise<Observation<Status>> {
    const state = renewState(obj, obj.status?.renewedGeneration);
    const drifted = driftedFields(obj.spec, privilege, state, now());
    const status = statusOf(privilege, {
      projectMembershipId: await membershipId(obj, scope),
      renewedGeneration: state.renewedGeneration,
    });
    return {
      exists: true,
      upToDate: drifted.length === 0,
      externalId: privilege.id,
      status,
      ...(drifted.length > 0 ? { diff: drifted.join(', ') } : {}),
    };
  }

  return {
    async observe(obj, ctx) {
      const scope = scopeOf(obj, ctx.references, ctx.signal);
      const id = ctx.externalId ?? (await matchesBySlug(client, scope, obj.spec.slug))[0]?.id;
      const privilege = id ? await getPrivilege(client, scope, id) : undefined;
      return privilege ? observed(obj, scope, privilege) : { exists: false };
    },
    async create(obj, ctx) {
      const scope = scopeOf(obj, ctx.references, ctx.signal);
      const membership = await requireMembership(client, scope);
      const body = createRequest(obj.spec, scope.owner, now());
      const privilege = await guarded(client, scope, () =>
        client.privileges.create(body, { signal: ctx.signal }),
      );
      if (!privilege)
        throw new Error('cannot create privilege: the service answered 404 for a member identity');
      return {
        externalId: privilege.id,
        status: statusOf(privilege, { projectMembershipId: membership.id }),
      };
    },
    async update(obj, ctx) {
      const scope = scopeOf(obj, ctx.references, ctx.signal);
      const current = await getPrivilege(client, scope, ctx.externalId);
      if (!current)
        throw new TransientError(
          commonReasons.names.ReconcileError,
          `cannot update privilege ${ctx.externalId}: it is gone`,
        );
      const state = renewState(obj, obj.status?.renewedGeneration);
      const at = now();
      const renewing = renewalDue(obj.spec, current, state, at);
      const body = updateRequest(obj.spec, current, { now: at, renewing, state });
      const updated = await client.privileges.update(ctx.externalId, body, { signal: ctx.signal });
      const renewedGeneration = renewing ? obj.metadata.generation : state.renewedGeneration;
      return {
        status: statusOf(updated, { projectMembershipId: await membershipId(obj, scope), renewedGeneration }),
      };
    },
    async delete(_obj, ctx) {
      await client.privileges.delete(ctx.externalId, { signal: ctx.signal });
    },
    // A privilege (deny rules among them) of a protected identity changes what it may do.
    protection: (_obj, ctx) =>
      identityProtection(protectedIdentities, ctx.references.identityId, ctx.references.identity),
    async findByNaturalKey(obj, ctx) {
      const { identityId, projectId, projectSlug } = ctx.references;
      if (!identityId || !projectId || !projectSlug) return [];
      return matchesBySlug(client, scopeOf(obj, ctx.references, ctx.signal), obj.spec.slug);
    },
    readyCheck: (obj, status) =>
      windowReadiness(obj.spec, windowOf(status), renewState(obj, status?.renewedGeneration), now()),
    requeueAfterMs: (_obj, status) => untilWindowChange(windowOf(status), now()),
  };
}

/** The AdditionalPrivilege adapter on the operator's services. */
export function additionalPrivilegeAdapter(
  services: OperatorServices,
): ManagedAdapter<AdditionalPrivilegeSpec, PrivilegeRefs, Status> {
  return {
    resolveReferences: (obj, context) => resolvePrivilegeRefs(services, obj, context),
    async connect(obj) {
      const connection = await services.connectionFor(obj);
      return privilegeClient(connection.client, () => services.now(), connection.protectedIdentities);
    },
  };
}
