/**
 * The Liquid engine of WorkloadSecret templates (https://liquidjs.com), loaded only when a
 * WorkloadSecret has a template (`render.ts` imports this module on demand). Sandboxed: no file
 * system (`include`/`render`/`layout` find nothing), own properties only, limits on parse size,
 * render time and memory. Unknown filters and undefined variables are errors (`default` and `if`
 * may test an undefined variable). Errors carry the key, line and column, and never a value.
 */
import { Liquid, LiquidError } from 'liquidjs';
import { FilterError, filters } from './filters.ts';

/** A template that does not parse or render; `message` is safe for status (no values). */
export class TemplateFailure extends Error {
  readonly key: string;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(key: string, line: number | undefined, column: number | undefined, what: string) {
    const at = line === undefined ? '' : `, line ${line} column ${column ?? 0}`;
    super(`template of key ${JSON.stringify(key)}${at}: ${what}`);
    this.key = key;
    this.line = line;
    this.column = column;
  }
}

function createEngine(): Liquid {
  const engine = new Liquid({
    strictFilters: true,
    strictVariables: true,
    lenientIf: true,
    ownPropertyOnly: true,
    templates: {},
    relativeReference: false,
    parseLimit: 1_000_000,
    renderLimit: 2_000,
    memoryLimit: 64 * 1024 * 1024,
  });
  for (const [name, filter] of Object.entries(filters)) engine.registerFilter(name, filter);
  return engine;
}

let shared: Liquid | undefined;

/** What went wrong, without the context excerpt Liquid appends (it could show rendered values). */
function describeFailure(error: unknown): string {
  let cause: unknown = error;
  while (cause instanceof LiquidError && cause.originalError) cause = cause.originalError;
  if (cause instanceof FilterError) return cause.message;
  const message = cause instanceof Error ? cause.message : String(cause);
  // Liquid appends ", line:L, col:C" itself: the position is reported separately.
  return message.replace(/, line:\d+, col:\d+$/, '');
}

function positionOf(error: unknown): [number | undefined, number | undefined] {
  if (!(error instanceof LiquidError)) return [undefined, undefined];
  const token = (error as LiquidError & { token?: { getPosition(): [number, number] } }).token;
  const position = token?.getPosition();
  return position ? [position[0], position[1]] : [undefined, undefined];
}

/** Renders `template` (the template of output `key`) with `scope`; throws `TemplateFailure`. */
export async function renderTemplate(
  key: string,
  template: string,
  scope: Readonly<Record<string, unknown>>,
): Promise<string> {
  shared ??= createEngine();
  try {
    const parsed = shared.parse(template);
    return String(await shared.render(parsed, scope));
  } catch (error) {
    const [line, column] = positionOf(error);
    throw new TemplateFailure(key, line, column, describeFailure(error));
  }
}
