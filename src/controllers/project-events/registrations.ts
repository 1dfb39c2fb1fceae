/**
 * The `register` list of a project event subscription for a set of (environment, folder) scopes.
 *
 * The service takes at most 10 registrations, each for one event kind, and matches a change when
 * the environment is equal and the change's path starts with the registered path (the newest
 * service release; facts §A22 variant C). Three kinds are watched (create, update, delete), so:
 *
 * 1. up to 3 distinct scopes: one registration per kind and scope (exact paths);
 * 2. more: per environment, the deepest common ancestor of its paths (broader, still exact for
 *    one folder), when the environments fit;
 * 3. still too many: registrations without conditions (the whole project).
 *
 * Broader registrations only cost extra events; the receiver matches every change against the
 * exact scopes of its resources before enqueueing anything.
 */
import type { SubscribeInput } from '../../client/index.ts';

/** The event kinds that can change a pushed key. */
export const SECRET_EVENTS = ['secret:create', 'secret:update', 'secret:delete'] as const;

/** The service's limit on registrations per subscription. */
export const MAX_REGISTRATIONS = 10;

export type Registration = SubscribeInput['register'][number];

/** An environment slug and a folder path (`/` or `/a/b`). */
export interface EventScope {
  readonly environment: string;
  readonly secretPath: string;
}

/** The deepest folder containing every path (`/` when they share nothing). */
export function commonAncestor(paths: readonly string[]): string {
  const split = paths.map((p) => p.split('/').filter((s) => s !== ''));
  const [first = [], ...rest] = split;
  let depth = first.length;
  for (const other of rest) {
    let same = 0;
    while (same < depth && same < other.length && other[same] === first[same]) same += 1;
    depth = same;
  }
  return `/${first.slice(0, depth).join('/')}`;
}

function unique(scopes: readonly EventScope[]): EventScope[] {
  const seen = new Map<string, EventScope>();
  for (const scope of scopes) seen.set(`${scope.environment}\n${scope.secretPath}`, scope);
  // Code-unit order, the same in every locale (the key of the list must be stable).
  return [...seen.entries()].sort(([a], [b]) => (a === b ? 0 : a < b ? -1 : 1)).map(([, scope]) => scope);
}

function byEnvironment(scopes: readonly EventScope[]): EventScope[] {
  const paths = new Map<string, string[]>();
  for (const scope of scopes) {
    const list = paths.get(scope.environment);
    if (list) list.push(scope.secretPath);
    else paths.set(scope.environment, [scope.secretPath]);
  }
  return [...paths.entries()].map(([environment, list]) => ({
    environment,
    secretPath: commonAncestor(list),
  }));
}

function forScopes(scopes: readonly EventScope[]): Registration[] {
  return scopes.flatMap((scope) =>
    SECRET_EVENTS.map((event) => ({
      event,
      conditions: { environmentSlug: scope.environment, secretPath: scope.secretPath },
    })),
  );
}

/** The registrations for `scopes` (empty when there is nothing to watch); see the module comment. */
export function registrationsFor(
  scopes: readonly EventScope[],
  max: number = MAX_REGISTRATIONS,
): Registration[] {
  const exact = unique(scopes);
  if (exact.length === 0) return [];
  const perScope = SECRET_EVENTS.length;
  if (exact.length * perScope <= max) return forScopes(exact);
  const merged = unique(byEnvironment(exact));
  if (merged.length * perScope <= max) return forScopes(merged);
  return SECRET_EVENTS.map((event) => ({ event }));
}

/** A stable key of a registration list (equal lists, equal keys). */
export function registrationKey(registrations: readonly Registration[]): string {
  return JSON.stringify(
    registrations.map((r) => [r.event, r.conditions?.environmentSlug ?? '', r.conditions?.secretPath ?? '']),
  );
}

/**
 * Whether a stream opened with `registrations` delivers every secret event of `scope`: each
 * watched kind registered for the whole project, or for its environment with a path the
 * folder's path starts with (the service's prefix match, facts §A22 variant C).
 */
export function covers(registrations: readonly Registration[], scope: EventScope): boolean {
  return SECRET_EVENTS.every((event) =>
    registrations.some(
      (r) =>
        r.event === event &&
        (r.conditions === undefined ||
          (r.conditions.environmentSlug === scope.environment &&
            scope.secretPath.startsWith(r.conditions.secretPath ?? '/'))),
    ),
  );
}
