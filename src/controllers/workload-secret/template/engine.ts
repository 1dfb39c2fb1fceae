/**
 * The Liquid engine of WorkloadSecret templates (https://liquidjs.com). It runs only inside a
 * render worker (`worker.ts`), never on the operator's event loop. Sandboxed: no file system
 * (`include`, `render` and `layout` are refused when the template is parsed), own properties
 * only, unknown filters and undefined variables are errors (`default` and `if` may test an
 * undefined variable). Limits from inside (`limits.ts`): Liquid's render-time and allocation
 * counters (our filters' output counted too) and the output cap, checked at every write; the
 * worker's heap limit and the time budget are enforced from outside (`workers.ts`). A failure is
 * described by `failure.ts`, which never lets a value through.
 */
import { Context, Liquid, Tag, toValue, toValueSync, type Emitter, type Template } from 'liquidjs';
import { parseFailure, renderFailure } from './failure.ts';
import { filters } from './filters.ts';
import { LIQUID_MEMORY_LIMIT, OUTPUT_LIMIT_BYTES } from './limits.ts';
import { TemplateLimitError, type RenderJob, type RenderOutcome } from './outcome.ts';

/** The fixed message of the tags that would read files. */
export const UNAVAILABLE_TAGS = 'include, render and layout are not available';

/** `include`, `render` and `layout`: refused when the template is parsed. */
class UnavailableTag extends Tag {
  constructor(...args: ConstructorParameters<typeof Tag>) {
    super(...args);
    throw new Error(UNAVAILABLE_TAGS);
  }
  *render(): Generator<unknown, void> {
    // Never reached: the constructor refuses the tag.
  }
}

/** Charges what a filter produced to Liquid's allocation counter of the render. */
function counted(filter: (value: unknown) => unknown) {
  return function (this: { context: Context }, value: unknown): unknown {
    const out = filter(value);
    const size = typeof out === 'string' ? out.length : typeof value === 'string' ? value.length : 0;
    this.context.memoryLimit.use(size);
    return out;
  };
}

/** A new engine (one per worker). */
export function createEngine(): Liquid {
  const engine = new Liquid({
    strictFilters: true,
    strictVariables: true,
    lenientIf: true,
    ownPropertyOnly: true,
    templates: {},
    relativeReference: false,
    parseLimit: 1_000_000,
  });
  for (const [name, filter] of Object.entries(filters)) engine.registerFilter(name, counted(filter));
  for (const name of ['include', 'render', 'layout']) engine.registerTag(name, UnavailableTag);
  return engine;
}

/** Liquid's string form of an output value (its `stringify`). */
function outputText(value: unknown): string {
  const plain: unknown = toValue(value);
  if (typeof plain === 'string') return plain;
  if (plain === undefined || plain === null) return '';
  if (Array.isArray(plain)) return plain.map(outputText).join('');
  // As Liquid does: a number, a boolean, a date or a map prints as String() makes it.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- Liquid's own output form
  return String(plain);
}

/** Collects a key's output; throws `TemplateLimitError('output')` once the budget is spent. */
class CappedEmitter implements Emitter {
  buffer = '';
  private readonly budget: { bytes: number };

  constructor(budget: { bytes: number }) {
    this.budget = budget;
  }

  write(html: unknown): void {
    const text = outputText(html);
    this.budget.bytes -= Buffer.byteLength(text, 'utf8');
    if (this.budget.bytes < 0) throw new TemplateLimitError('output');
    this.buffer += text;
  }
}

/** A failure of the top-level template `at` (its position when the error has none of its own). */
class TopLevelFailure extends Error {
  readonly at: Template;
  constructor(at: Template, cause: unknown) {
    super('a template failed', { cause });
    this.at = at;
  }
}

/**
 * Renders one key, one top-level template at a time as Liquid does (a top-level `break` ends
 * it), so a failure always has a position in the template: an error raised in text Liquid
 * parsed at run time (`where_exp` with a value as its expression) has no position of its own.
 */
function renderOne(engine: Liquid, parsed: Template[], scope: object, limits: RenderLimits): string {
  const ctx = new Context(
    scope,
    engine.options,
    { renderLimit: limits.deadline - performance.now(), memoryLimit: LIQUID_MEMORY_LIMIT, sync: true },
    { liquid: engine },
  );
  const emitter = new CappedEmitter(limits.output);
  for (const template of parsed) {
    try {
      toValueSync(engine.renderer.renderTemplates([template], ctx, emitter));
    } catch (error) {
      throw new TopLevelFailure(template, error);
    }
    if (ctx.breakCalled || ctx.continueCalled) break;
  }
  return emitter.buffer;
}

interface RenderLimits {
  readonly deadline: number;
  readonly output: { bytes: number };
}

/**
 * Renders every template of `job` over its data (each merged key a variable, the whole map as
 * `secrets`); `onKey` is told which key starts. Stops at the first failure.
 */
export function renderJob(engine: Liquid, job: RenderJob, onKey: (key: string) => void): RenderOutcome {
  const scope = { secrets: job.data, ...job.data };
  const limits = { deadline: performance.now() + job.budgetMs, output: { bytes: OUTPUT_LIMIT_BYTES } };
  const data: Record<string, string> = {};
  for (const [key, source] of job.templates) {
    onKey(key);
    let parsed: Template[];
    try {
      parsed = engine.parse(source);
    } catch (error) {
      return { ok: false, failure: parseFailure(key, source, error) };
    }
    try {
      data[key] = renderOne(engine, parsed, scope, limits);
    } catch (error) {
      const top = error instanceof TopLevelFailure ? error : undefined;
      return { ok: false, failure: renderFailure(key, source, top?.cause ?? error, top?.at.token) };
    }
  }
  return { ok: true, data };
}
