/**
 * The floors of `src/` and which may import which (docs/architecture.md, "Floors"). A file may import its
 * own floor or a lower one, never a higher one:
 *
 *   cli → sandbox → operator, config → controllers → managed → client, api → runtime, src/*.ts
 *
 * `devserver` stands beside the stack: it imports nothing of the operator's floors — only the
 * shared helpers directly in `src/` (`src/*.ts`) — and only `cli`, `sandbox` and test files may
 * import it; the operator's floors never depend on it.
 * Test files (`*.test.ts`) follow their floor's rule but may also import the devserver and
 * anything outside `src/` (test support).
 */

/** A floor: its name, rank (higher may import lower) and the paths (relative to the root) in it. */
export interface Floor {
  readonly name: string;
  readonly rank: number;
  readonly paths: readonly string[];
}

/** Bottom to top. `src/*.ts` files directly in `src/` are shared helpers on the lowest floor. */
export const FLOORS: readonly Floor[] = [
  { name: 'runtime', rank: 0, paths: ['src/runtime/', 'src/*.ts'] },
  { name: 'client/api', rank: 1, paths: ['src/client/', 'src/api/'] },
  { name: 'managed', rank: 2, paths: ['src/managed/'] },
  { name: 'controllers', rank: 3, paths: ['src/controllers/'] },
  { name: 'operator', rank: 4, paths: ['src/operator/', 'src/config/'] },
  { name: 'sandbox', rank: 5, paths: ['src/sandbox/'] },
  { name: 'cli', rank: 6, paths: ['src/cli/'] },
];

/** The sibling floor. */
export const DEVSERVER: Floor = { name: 'devserver', rank: -1, paths: ['src/devserver/'] };

const MAY_IMPORT_DEVSERVER = new Set(['cli', 'sandbox']);

function matches(file: string, pattern: string): boolean {
  if (pattern.endsWith('/')) return file.startsWith(pattern);
  const dir = pattern.slice(0, pattern.lastIndexOf('/') + 1);
  return file.startsWith(dir) && !file.slice(dir.length).includes('/') && file.endsWith('.ts');
}

/** The floor of a root-relative path (forward slashes); undefined outside `src/`. */
export function floorOf(file: string): Floor | undefined {
  if (!file.startsWith('src/')) return undefined;
  if (matches(file, DEVSERVER.paths[0]!)) return DEVSERVER;
  return FLOORS.find((floor) => floor.paths.some((p) => matches(file, p)));
}

/** The devserver's rule, for an import from or into it. */
function devserverViolation(source: Floor, target: Floor, to: string, isTest: boolean): string | undefined {
  if (isTest || source === target) return undefined;
  if (target === DEVSERVER) {
    if (MAY_IMPORT_DEVSERVER.has(source.name)) return undefined;
    return `floor ${source.name} may not import the devserver (only cli, sandbox and tests may)`;
  }
  if (matches(to, 'src/*.ts')) return undefined;
  return `the devserver may import only the shared helpers in src/*.ts, not floor ${target.name} (${to})`;
}

/**
 * Why `from` may not import `to` (both root-relative), or undefined when it may. A path under
 * `src/` that belongs to no floor (a new top-level folder) is refused until it is given one.
 */
export function importViolation(from: string, to: string): string | undefined {
  const source = floorOf(from);
  if (!source) return undefined;
  const isTest = from.endsWith('.test.ts');
  const target = floorOf(to);
  if (!target) {
    if (!to.startsWith('src/'))
      return isTest ? undefined : `${from} (floor ${source.name}) imports ${to}, outside src/`;
    return `${to} belongs to no floor: add its folder to FLOORS in scripts/lint/floors.ts`;
  }
  if (target === DEVSERVER || source === DEVSERVER) return devserverViolation(source, target, to, isTest);
  if (target.rank <= source.rank) return undefined;
  return `floor ${source.name} may not import floor ${target.name} above it (${to})`;
}
