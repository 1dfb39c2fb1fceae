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

function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/** Shortens `ancestor` (a folder's segments, in place) to the folder it shares with `path`. */
function narrow(ancestor: string[], path: string): void {
  if (ancestor.length === 0) return;
  const other = segments(path);
  let same = 0;
  while (same < ancestor.length && same < other.length && other[same] === ancestor[same]) same += 1;
  ancestor.length = same;
}

/** The deepest folder containing every path (`/` when they share nothing). */
export function commonAncestor(paths: readonly string[]): string {
  const [first, ...rest] = paths;
  const ancestor = first === undefined ? [] : segments(first);
  for (const path of rest) narrow(ancestor, path);
  return `/${ancestor.join('/')}`;
}

function unique(scopes: readonly EventScope[]): EventScope[] {
  const seen = new Map<string, EventScope>();
  for (const scope of scopes) seen.set(`${scope.environment}\n${scope.secretPath}`, scope);
  // Code-unit order, the same in every locale (the key of the list must be stable).
  return [...seen.entries()].sort(([a], [b]) => (a === b ? 0 : a < b ? -1 : 1)).map(([, scope]) => scope);
}

/** Per environment, the deepest folder containing all its scopes' paths (one pass, no lists). */
function byEnvironment(scopes: readonly EventScope[]): EventScope[] {
  const ancestors = new Map<string, string[]>();
  for (const scope of scopes) {
    const known = ancestors.get(scope.environment);
    if (known) narrow(known, scope.secretPath);
    else ancestors.set(scope.environment, segments(scope.secretPath));
  }
  return [...ancestors.entries()].map(([environment, parts]) => ({
    environment,
    secretPath: `/${parts.join('/')}`,
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
  const perScope = SECRET_EVENTS.length;
  // Exact scopes only while they fit: stop looking at the first one too many (a stream of a
  // thousand batches is refreshed as each registers, and would sort a thousand keys each time).
  const distinct = new Map<string, EventScope>();
  for (const scope of scopes) {
    distinct.set(`${scope.environment}\n${scope.secretPath}`, scope);
    if (distinct.size * perScope > max) break;
  }
  if (distinct.size === 0) return [];
  if (distinct.size * perScope <= max) return forScopes(unique([...distinct.values()]));
  const merged = unique(byEnvironment(scopes));
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
