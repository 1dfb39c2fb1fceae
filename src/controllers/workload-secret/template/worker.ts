/**
 * The render worker: a `node:worker_threads` entry point (also an entry point of the bundle,
 * scripts/build.ts) started by `workers.ts`. It posts `ready` once the engine is loaded, then
 * answers each job with its outcome; before each key it posts which key starts, so a worker
 * terminated for its time names the key. Its heap is capped by the `resourceLimits` it was
 * started with; it never logs.
 *
 * Messages in: `{ id, job }` (`RenderJob`). Out: `{ type: 'ready', heapLimitMb }` (the V8 heap
 * limit it got), `{ type: 'key', id, key }`,
 * `{ type: 'done', id, outcome }` (`RenderOutcome`).
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { createEngine, renderJob } from './engine.ts';
import type { RenderJob } from './outcome.ts';

const port = parentPort;
if (!port) throw new Error('the template render worker must run in a worker thread');

const engine = createEngine();

port.on('message', (message: { id: number; job: RenderJob }) => {
  const { id, job } = message;
  const outcome = renderJob(engine, job, (key) => port.postMessage({ type: 'key', id, key }));
  port.postMessage({ type: 'done', id, outcome });
});
port.postMessage({ type: 'ready', heapLimitMb: getHeapStatistics().heap_size_limit / 1024 / 1024 });
