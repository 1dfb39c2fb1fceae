/**
 * The limits of template rendering, in one place: the render workers (`workers.ts`) enforce them
 * from outside (a worker over its time is terminated; its heap is capped by V8), the engine
 * (`engine.ts`) from inside (Liquid's own counters, the output cap). docs/kinds/workload-secret.md
 * ("Limits") states them.
 */

/** Wall-clock budget of one delivery's templates (every key of one WorkloadSecret), in ms. */
export const TIME_BUDGET_MS = 1_000;

/**
 * V8 heap of a render worker (`resourceLimits`), old and young generation, in MiB. Strings grown
 * by `append`, `capture`, loops and filters live there; the filters bound their input so the
 * memory outside the heap (Buffers) stays small (`filters.ts`). A larger heap costs more than its
 * size: V8 grows its allowance near the limit. What a worker holds at rest and when a template
 * exhausts this heap, and the operator's memory while hostile templates render, are printed by
 * `npm run bench:delivery -- --hostile` (docs/benchmarks.md).
 */
export const WORKER_OLD_SPACE_MB = 16;
export const WORKER_YOUNG_SPACE_MB = 2;

/**
 * Liquid's own allocation counter per key (characters its filters and tags produce, our filters'
 * output included): a runaway usually meets this clean, positioned error before the heap limit.
 */
export const LIQUID_MEMORY_LIMIT = 8 * 1024 * 1024;

/** Output cap of one delivery's templates, all keys together, in bytes (a Secret holds 1 MiB). */
export const OUTPUT_LIMIT_BYTES = 1024 * 1024;

/** The longest text a filter accepts (characters): nothing longer can be delivered anyway. */
export const FILTER_INPUT_LIMIT = 1024 * 1024;

/** How many templated WorkloadSecrets render at once (one worker each). */
export const WORKER_COUNT = 2;

/** A worker idle this long is terminated (ms); the next render starts one again. */
export const WORKER_IDLE_MS = 60_000;

/** Rendered output the memo keeps at most (characters of keys and values, all resources). */
export const MEMO_LIMIT_CHARS = 8 * 1024 * 1024;

/** Which limit a render met (in `TemplateError` messages). */
export type LimitKind = 'time' | 'memory' | 'output';

const limitTexts: Readonly<Record<LimitKind, string>> = {
  time: `time limit exceeded (${TIME_BUDGET_MS} ms for the templates of a WorkloadSecret)`,
  memory: `memory limit exceeded (${WORKER_OLD_SPACE_MB} MiB)`,
  output: `output size limit exceeded (${OUTPUT_LIMIT_BYTES / 1024 / 1024} MiB)`,
};

/** The text of a limit in a `TemplateError` message. */
export function limitText(limit: LimitKind): string {
  return limitTexts[limit];
}
