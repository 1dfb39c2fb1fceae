/**
 * `POST /api/v1/events/subscribe/project-events` (facts A22): checks the `secret-events`
 * permission for every registration (a normal JSON 403 otherwise), then answers 200 with a
 * Server-Sent Events stream of `secret:*` events matching the registrations, a `ping` every
 * 15 s, and at most 5 streams per (project, identity) (429 beyond). Every change is also checked
 * against the subscriber's current permissions before delivery; the token and membership are
 * re-validated every 60 s.
 */
import type { DevApp } from '../app.ts';
import { SubscribeBodySchema, type EventKind } from '../domain/event-hub.ts';
import { can, assertCan } from '../domain/permission-rules.ts';
import type { SecretChange } from '../domain/secret-model.ts';
import { HIJACKED, type Actor, type RequestContext, type RouteDef } from '../http/types.ts';
import { projectRules } from '../domain/permissions.ts';
import { actorOf, findProject } from './common.ts';

const ACTION: Readonly<Record<EventKind, string>> = {
  'secret:create': 'subscribe-on-created',
  'secret:update': 'subscribe-on-updated',
  'secret:delete': 'subscribe-on-deleted',
  'secret:import-mutation': 'subscribe-on-import-mutations',
};

function currentRules(app: DevApp, actor: Actor, projectId: string) {
  try {
    return app.state.accessTokens[actor.tokenId] ? projectRules(app, actor, projectId) : undefined;
  } catch {
    return undefined;
  }
}

function subscribe(app: DevApp, ctx: RequestContext): typeof HIJACKED {
  const actor = actorOf(ctx);
  const body = SubscribeBodySchema.parse(ctx.body ?? {});
  const project = findProject(app, actor, body.projectId);
  const rules = projectRules(app, actor, project.id);
  for (const reg of body.register) {
    const context = reg.conditions && {
      environment: reg.conditions.environmentSlug,
      secretPath: reg.conditions.secretPath,
    };
    assertCan(rules, ACTION[reg.event], 'secret-events', context);
  }
  const res = ctx.res;
  const subscription = app.events.subscribe({
    projectId: project.id,
    actorKey: `identity:${actor.identityId}`,
    register: body.register,
    target: { write: (chunk) => res.write(chunk), end: () => res.end() },
    canReceive: (change: SecretChange) => {
      const now = currentRules(app, actor, project.id);
      const context = {
        environment: change.environment,
        secretPath: change.secretPath,
        secretName: change.secretKey,
      };
      return now !== undefined && can(now, ACTION[change.type], 'secret-events', context);
    },
    refresh: () => currentRules(app, actor, project.id) !== undefined,
  });
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  ctx.req.socket.setNoDelay(true);
  res.on('close', () => subscription.close());
  return HIJACKED;
}

/** The project event subscription route. */
export function eventRoutes(app: DevApp): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/events/subscribe/project-events',
      bucket: 'read',
      write: false,
      handler: (ctx) => subscribe(app, ctx),
    },
  ];
}
