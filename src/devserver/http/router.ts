/**
 * A small path router with `:param` segments, trailing slashes ignored (like the real
 * service's `ignoreTrailingSlash`). Static segments win over parameters at the first
 * position where two patterns differ, so `/workspace/environments/:id` beats
 * `/workspace/:id/environments` for `/workspace/environments/x`.
 */
import type { HttpMethod, RouteDef } from './types.ts';

interface CompiledRoute {
  def: RouteDef;
  /** One entry per segment: a literal, or `null` for a parameter. */
  literals: (string | null)[];
  names: (string | null)[];
}

export interface RouteMatch {
  def: RouteDef;
  params: Record<string, string>;
}

/** Thrown when a path segment is not valid percent-encoding. */
export class MalformedPathError extends Error {}

function splitPath(path: string): string[] {
  const parts = path.split('/');
  // Leading "" from the root slash; trailing "" from a trailing slash.
  return parts.filter((p, i) => !(p === '' && (i === 0 || i === parts.length - 1)));
}

function compareRoutes(a: CompiledRoute, b: CompiledRoute): number {
  const n = Math.min(a.literals.length, b.literals.length);
  for (let i = 0; i < n; i++) {
    const aStatic = a.literals[i] !== null;
    const bStatic = b.literals[i] !== null;
    if (aStatic !== bStatic) return aStatic ? -1 : 1;
  }
  return 0;
}

/** Routes grouped by method and segment count, pre-sorted so the first match wins. */
export class Router {
  private readonly table = new Map<string, CompiledRoute[]>();

  /** Registers `def`; later registrations of the same method and pattern are ignored. */
  add(def: RouteDef): void {
    const segments = splitPath(def.path);
    const compiled: CompiledRoute = {
      def,
      literals: segments.map((s) => (s.startsWith(':') ? null : s)),
      names: segments.map((s) => (s.startsWith(':') ? s.slice(1) : null)),
    };
    const key = `${def.method} ${segments.length}`;
    const list = this.table.get(key) ?? [];
    list.push(compiled);
    list.sort(compareRoutes);
    this.table.set(key, list);
  }

  /** The route for `method` and `path` (query string excluded), or undefined. */
  match(method: string, path: string): RouteMatch | undefined {
    const segments = splitPath(path);
    // HEAD is served by the GET route (node:http omits the body), as the service's framework does.
    const lookup = method === 'HEAD' ? 'GET' : method;
    const candidates = this.table.get(`${lookup as HttpMethod} ${segments.length}`);
    if (!candidates) return undefined;
    for (const route of candidates) {
      const params = matchSegments(route, segments);
      if (params) return { def: route.def, params };
    }
    return undefined;
  }
}

function matchSegments(route: CompiledRoute, segments: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const literal = route.literals[i];
    const segment = segments[i] ?? '';
    if (literal === null) {
      if (segment === '') return undefined;
      params[route.names[i] ?? ''] = decodeSegment(segment);
    } else if (literal !== segment) {
      return undefined;
    }
  }
  return params;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch (err) {
    throw new MalformedPathError(`cannot decode path segment: ${segment}`, { cause: err });
  }
}
