/**
 * Identity adapter: an organization machine identity and its project memberships.
 *
 * - observe: `GET /api/v1/identities/{id}`, or by name in the organization when no id is
 *   recorded (adoption); then the membership of each listed project;
 * - create: `POST /api/v1/identities`, then the memberships (a failure there is completed by the
 *   next reconcile, which comes within seconds);
 * - update: the differing settings by PATCH; memberships created, roles replaced, memberships of
 *   projects no longer listed removed;
 * - delete: `DELETE /api/v1/identities/{id}` (refused while deletion protection is on).
 */
import type { IdentitySpec } from '../../api/v1alpha1/index.ts';
import type { ExternalClient, ManagedAdapter, ManagedObject } from '../../managed/external-client.ts';
import { identityProtection, naturalKeyMatch } from '../../managed/external-client.ts';
import { isObserveOnly } from '../../managed/spec.ts';
import type { OperatorServices, ResolvedConnection } from '../kind-controller.ts';
import { findIdentity, identitiesNamed, organizationOf } from './lookup.ts';
import {
  createRequest,
  outputSecret,
  statusOf,
  updateRequest,
  type IdentityStatusFields,
} from './mapping.ts';
import { applyMembershipPlan, readMemberships } from './membership-sync.ts';
import {
  describePlan,
  heldMemberships,
  membershipPlan,
  recordOf,
  type RecordedMembership,
} from './memberships.ts';
import { resolveMemberships, type IdentityRefs } from './references.ts';

type Client = ExternalClient<IdentitySpec, IdentityRefs, IdentityStatusFields>;

/** Requeue soon after a create whose memberships are not all in place. */
const completeCreateAfterMs = 5_000;

/** The memberships recorded in status (the ones this resource manages). */
function recorded(obj: ManagedObject<IdentitySpec>): RecordedMembership[] {
  return (obj.status as IdentityStatusFields | undefined)?.memberships ?? [];
}

function identityClient(connection: ResolvedConnection, services: OperatorServices): Client {
  const { client } = connection;
  const secretOf = (obj: ManagedObject<IdentitySpec>, id: string, orgId?: string) =>
    outputSecret(obj.spec, id, orgId ?? connection.organizationId);
  return {
    async observe(obj, ctx) {
      const identity = await findIdentity(connection, obj, ctx);
      if (!identity) return { exists: false };
      const desired = ctx.references.memberships;
      const current = await readMemberships(client, identity.id, desired, ctx.signal);
      const plan = membershipPlan(desired, current, recorded(obj));
      const diff = [...Object.keys(updateRequest(obj.spec, identity)), ...describePlan(plan)];
      return {
        exists: true,
        upToDate: diff.length === 0,
        externalId: identity.id,
        status: statusOf(identity, connection.organizationId, heldMemberships(desired, current)),
        secretData: secretOf(obj, identity.id, identity.orgId),
        ...(diff.length > 0 ? { diff: diff.join(', ') } : {}),
      };
    },
    async create(obj, ctx) {
      const request = createRequest(obj.spec, organizationOf(connection));
      const created = await client.identities.create(request, { signal: ctx.signal });
      const desired = ctx.references.memberships;
      let memberships: RecordedMembership[] = [];
      try {
        const plan = { create: desired, update: [], remove: [] };
        await applyMembershipPlan(client, created.id, plan, { now: services.now(), signal: ctx.signal });
        memberships = recordOf(desired);
      } catch (error) {
        // The identity exists: report its id now; the next reconcile adds the memberships.
        ctx.log.warn(
          { err: error, externalId: created.id },
          'cannot add the new identity to its projects yet',
        );
      }
      return {
        externalId: created.id,
        status: statusOf(created, connection.organizationId, memberships),
        secretData: secretOf(obj, created.id, created.orgId),
      };
    },
    async update(obj, ctx) {
      const { signal } = ctx;
      const identity = await client.identities.get(ctx.externalId, { signal });
      const settings = updateRequest(obj.spec, identity);
      if (Object.keys(settings).length > 0) await client.identities.update(identity.id, settings, { signal });
      const desired = ctx.references.memberships;
      const current = await readMemberships(client, identity.id, desired, signal);
      const plan = membershipPlan(desired, current, recorded(obj));
      await applyMembershipPlan(client, identity.id, plan, { now: services.now(), signal });
      return {
        status: statusOf(identity, connection.organizationId, recordOf(desired)),
        secretData: secretOf(obj, identity.id, identity.orgId),
      };
    },
    async delete(_obj, ctx) {
      await client.identities.delete(ctx.externalId, { signal: ctx.signal });
    },
    protection: (obj, ctx) => identityProtection(connection.protectedIdentities, ctx.externalId, obj),
    async findByNaturalKey(obj, ctx) {
      return (await identitiesNamed(connection, obj, ctx.signal)).map(naturalKeyMatch);
    },
    requeueAfterMs(obj, status) {
      if (isObserveOnly(obj.spec)) return undefined;
      const recorded = new Set((status?.memberships ?? []).map((m) => m.project));
      const pending = (obj.spec.projectMemberships ?? []).some((m) => !recorded.has(m.projectRef.name));
      return pending ? completeCreateAfterMs : undefined;
    },
  };
}

/** The Identity adapter on the operator's services. */
export function identityAdapter(
  services: OperatorServices,
): ManagedAdapter<IdentitySpec, IdentityRefs, IdentityStatusFields> {
  return {
    resolveReferences: (obj, context) => resolveMemberships(services, obj, context),
    async connect(obj) {
      return identityClient(await services.connectionFor(obj), services);
    },
  };
}
