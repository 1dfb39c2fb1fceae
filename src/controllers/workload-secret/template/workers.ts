/**
 * The render workers: templates render in `node:worker_threads` workers, off the operator's event
 * loop, each worker with a capped V8 heap (`resourceLimits`) and a wall-clock budget per job.
 *
 * - A job (every template of one delivery) goes to an idle worker, or waits for one. Its budget
 *   starts when the worker receives it; a worker still busy at the budget (plus a short grace for
 *   its own answer) is terminated and the job ends in a time-limit failure. A worker that dies
 *   out of memory ends its job in a memory-limit failure. A worker whose render met the memory
 *   limit in any way is replaced too: nothing of a hostile render survives it. The successor
 *   starts at once (idle, it is stopped like any other), so the next job does not wait for it.
 * - `WORKER_COUNT` workers at most, started lazily on the first job (an operator without
 *   templates starts none); a worker idle for `WORKER_IDLE_MS` is terminated, so memory at rest
 *   holds no worker. Two workers keep one hostile template from delaying every other templated
 *   WorkloadSecret by its whole budget, at the memory of two small heaps.
 * - A worker that fails otherwise (it cannot start, it exits) fails its job with a plain error
 *   (retried by the reconciler with backoff); no error text of a worker is ever passed on.
 * - V8's heap-size flags override every isolate's `resourceLimits`, a worker's included: with the
 *   chart's `--max-old-space-size=256` a worker would get the operator's 256 MiB. The operator's
 *   own heap was sized when it started and V8 reads the flags only when it creates an isolate, so
 *   the flags are cleared before the first worker starts; each worker reports the heap limit it
 *   got (`heapLimitMb`, checked by the tests and printed by the benchmark).
 *
 * The worker script is `worker.ts` beside this file in the sources and
 * `dist/workers/template-render.mjs` in the bundle (an entry point of scripts/build.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { packageFile } from '../../../runtime/package-root.ts';
import { TemplateLimitError, type RenderJob, type RenderOutcome } from './outcome.ts';
import type { LimitKind } from './limits.ts';
import {
  TIME_BUDGET_MS,
  WORKER_COUNT,
  WORKER_IDLE_MS,
  WORKER_OLD_SPACE_MB,
  WORKER_YOUNG_SPACE_MB,
} from './limits.ts';

/** Time a worker gets past its budget to answer before it is terminated (ms). */
const GRACE_MS = 250;

let heapFlagsCleared = false;

/** Lets `resourceLimits` govern the workers' heaps (see the module comment); once per process. */
function clearHeapSizeFlags(): void {
  if (heapFlagsCleared) return;
  setFlagsFromString('--max-old-space-size=0');
  setFlagsFromString('--max-heap-size=0');
  heapFlagsCleared = true;
}

/** The worker script in the layout this module runs from (sources or bundle). */
export function workerScript(): URL {
  return import.meta.url.endsWith('.ts')
    ? new URL('./worker.ts', import.meta.url)
    : packageFile('dist/workers/template-render.mjs');
}

interface Pending {
  readonly id: number;
  readonly job: RenderJob;
  readonly resolve: (outcome: RenderOutcome) => void;
  readonly reject: (error: Error) => void;
  /** The key the worker started last. */
  key?: string;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker?: Worker;
  ready: boolean;
  current?: Pending;
  idle?: NodeJS.Timeout;
}

type WorkerMessage =
  | { readonly type: 'ready'; readonly heapLimitMb: number }
  | { readonly type: 'key'; readonly id: number; readonly key: string }
  | { readonly type: 'done'; readonly id: number; readonly outcome: RenderOutcome };

/** Options (tests use small values). */
export interface RenderWorkersOptions {
  readonly size: number;
  readonly budgetMs: number;
  readonly idleMs: number;
  readonly script: URL;
}

export class RenderWorkers {
  private readonly options: RenderWorkersOptions;
  private readonly slots: Slot[];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** The V8 heap limit the last worker reported, in MiB (tests, benchmark). */
  heapLimitMb: number | undefined;

  constructor(options: Partial<RenderWorkersOptions> = {}) {
    this.options = {
      size: options.size ?? WORKER_COUNT,
      budgetMs: options.budgetMs ?? TIME_BUDGET_MS,
      idleMs: options.idleMs ?? WORKER_IDLE_MS,
      script: options.script ?? workerScript(),
    };
    this.slots = Array.from({ length: this.options.size }, () => ({ ready: false }));
  }

  /** Renders `job` (without `budgetMs`, which the pool sets) in a worker; see the module comment. */
  render(job: Omit<RenderJob, 'budgetMs'>): Promise<RenderOutcome> {
    if (this.closed) return Promise.reject(new Error('the render workers closed'));
    return new Promise((resolve, reject) => {
      const full = { ...job, budgetMs: this.options.budgetMs };
      this.queue.push({ id: this.nextId++, job: full, resolve, reject });
      this.pump();
    });
  }

  /** How many workers are running (for tests and the benchmark). */
  get running(): number {
    return this.slots.filter((slot) => slot.worker).length;
  }

  /** Terminates every worker; waiting and running jobs fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error('the render workers closed'));
    await Promise.all(this.slots.map((slot) => this.discard(slot, new Error('the render workers closed'))));
  }

  /** Gives waiting jobs to ready workers, and starts as many workers as jobs still wait. */
  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.worker && slot.ready && !slot.current) this.dispatch(slot, this.queue.shift() as Pending);
    }
    let wanted = this.queue.length - this.slots.filter((slot) => slot.worker && !slot.ready).length;
    for (const slot of this.slots.filter((s) => !s.worker)) {
      if (wanted-- <= 0) return;
      this.start(slot);
    }
  }

  /** A new worker, or undefined (the waiting jobs failed) when none can be started. */
  private spawn(): Worker | undefined {
    try {
      clearHeapSizeFlags();
      return new Worker(this.options.script, {
        resourceLimits: {
          maxOldGenerationSizeMb: WORKER_OLD_SPACE_MB,
          maxYoungGenerationSizeMb: WORKER_YOUNG_SPACE_MB,
          stackSizeMb: 4,
        },
        env: {},
        // Node's options of the operator (`--eval`, `--input-type`...) are not the worker's; V8's
        // flags are the process's anyway.
        execArgv: [],
        stdout: false,
        stderr: false,
      });
    } catch {
      const error = new Error('cannot render the templates: cannot start a render worker');
      for (const waiting of this.queue.splice(0)) waiting.reject(error);
      return undefined;
    }
  }

  private start(slot: Slot): void {
    if (this.closed) return;
    const worker = this.spawn();
    if (!worker) return;
    Object.assign(slot, { worker, ready: false });
    worker.on('message', (message: WorkerMessage) => this.received(slot, worker, message));
    worker.on('error', (error: Error & { code?: string }) => {
      if (slot.worker !== worker) return;
      const limit = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : undefined;
      void this.end(slot, limit);
    });
    worker.on('exit', () => {
      if (slot.worker === worker) void this.end(slot, undefined);
    });
  }

  /**
   * The slot's worker is idle: stopped after `idleMs`, and no reason for the process to keep
   * running (`unref` after the listeners: a 'message' listener refs the worker's port again). A
   * starting or busy worker is referenced: the job waiting on it keeps the process up.
   */
  private rest(slot: Slot): void {
    slot.worker?.unref();
    slot.idle = setTimeout(() => void this.discard(slot), this.options.idleMs).unref();
  }

  private received(slot: Slot, worker: Worker, message: WorkerMessage): void {
    if (slot.worker !== worker) return;
    if (message.type === 'ready') {
      slot.ready = true;
      this.heapLimitMb = message.heapLimitMb;
      this.pump();
      if (!slot.current) this.rest(slot);
      return;
    }
    const pending = slot.current;
    if (!pending || pending.id !== message.id) return;
    if (message.type === 'key') {
      pending.key = message.key;
      return;
    }
    clearTimeout(pending.timer);
    slot.current = undefined;
    pending.resolve(message.outcome);
    // A render that met the memory limit may have left the worker near its heap limit (and its
    // termination for that on its way): the next job gets a fresh worker rather than the blame.
    if (!message.outcome.ok && message.outcome.failure.limit === 'memory') void this.replace(slot);
    else this.rest(slot);
    this.pump();
  }

  private dispatch(slot: Slot, pending: Pending): void {
    clearTimeout(slot.idle);
    slot.worker?.ref();
    slot.current = pending;
    pending.timer = setTimeout(() => void this.end(slot, 'time'), this.options.budgetMs + GRACE_MS);
    slot.worker?.postMessage({ id: pending.id, job: pending.job });
  }

  /**
   * Ends the slot's worker: its job fails with `limit` (a template failure), or with a plain
   * error when the worker failed for another reason; a worker that never became ready fails the
   * waiting jobs too (it would fail them all).
   */
  private async end(slot: Slot, limit: LimitKind | undefined): Promise<void> {
    const pending = slot.current;
    const neverReady = !slot.ready;
    const stopped = new Error('cannot render the templates: the render worker stopped');
    if (pending && limit) {
      clearTimeout(pending.timer);
      slot.current = undefined;
      const key = pending.key ?? pending.job.templates[0]?.[0] ?? '';
      pending.resolve({ ok: false, failure: { key, what: new TemplateLimitError(limit).message, limit } });
    }
    if (limit) return this.replace(slot, stopped);
    await this.discard(slot, stopped);
    if (neverReady) for (const waiting of this.queue.splice(0)) waiting.reject(stopped);
    this.pump();
  }

  /**
   * Terminates the slot's worker after a limit and starts its successor at once, so the next
   * job (likely another WorkloadSecret's) does not wait for a worker to start.
   */
  private async replace(slot: Slot, error?: Error): Promise<void> {
    const old = slot.worker;
    await this.discard(slot, error);
    if (!slot.worker && old) this.start(slot);
    this.pump();
  }

  /** Terminates the slot's worker; a job still on it fails with `error`. */
  private async discard(slot: Slot, error = new Error('the render worker was stopped')): Promise<void> {
    const { worker, current } = slot;
    clearTimeout(slot.idle);
    clearTimeout(current?.timer);
    Object.assign(slot, { worker: undefined, ready: false, current: undefined });
    current?.reject(error);
    await worker?.terminate();
  }
}
