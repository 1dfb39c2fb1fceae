/**
 * `GET /api/v2/workspace/identity-memberships/{membershipId}`: an identity's project membership
 * by the membership's own id (deprecated identity-project router). 404 for an id outside the
 * caller's organisation; the caller needs `read` on `identity` for that identity in the project.
 */
import type { DevApp } from '../app.ts';
import { notFound } from '../domain/errors.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { requireProjectPermission } from '../domain/permissions.ts';
import { actorOf } from './common.ts';
import { membershipShape } from './membership-shapes.ts';

function getMembershipById(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const id = ctx.params.membershipId ?? '';
  const membership = app.state.memberships[id];
  if (!membership || app.state.projects[membership.projectId]?.orgId !== actor.orgId)
    throw notFound(`Project membership with ID '${id}' not found`);
  requireProjectPermission(app, actor, membership.projectId, {
    action: 'read',
    subject: 'identity',
    context: { identityId: membership.identityId },
  });
  return { identityMembership: membershipShape(app, membership) };
}

/** The membership-by-id route. */
export function membershipLookupRoutes(app: DevApp): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/api/v2/workspace/identity-memberships/:membershipId',
      bucket: 'read',
      handler: (ctx) => getMembershipById(app, ctx),
    },
  ];
}
