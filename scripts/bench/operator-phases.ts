/**
 * Phases of the operator benchmark that run in their own namespace: drift restored without the
 * project event stream (poll only), and convergence under an enforced budget (a rate-limited
 * devserver and a Connection whose requestsPerMinute stays below the limit).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { group, version } from '../../src/api/v1alpha1/index.ts';
import type { EventSubscription } from '../../src/client/index.ts';
import { latencyText, waitAllReady, type BatchTarget } from './operator-measure.ts';
import { driftRestoreLatencies } from './operator-measure.ts';
import {
  batchPath,
  countReady,
  createBatches,
  createConnection,
  createProjects,
  createSources,
  startService,
  type BenchEnv,
  type Service,
} from './operator-setup.ts';

type Rows = [string, string][];

async function waitConnection(env: BenchEnv, namespace: string): Promise<void> {
  await waitAllReady(
    env,
    namespace,
    { connections: 1 },
    { since: Date.now(), timeoutMs: 60_000, intervalMs: 200, log: () => undefined },
  );
}

async function projectId(env: BenchEnv, namespace: string, name: string): Promise<string> {
  const obj = (await env.custom.getNamespacedCustomObject({
    group,
    version,
    plural: 'projects',
    namespace,
    name,
  })) as {
    status?: { id?: string };
  };
  return obj.status?.id ?? '';
}

/** States of `status.events.state` of the SecretBatches in `namespace`, counted. */
async function eventStates(env: BenchEnv, namespace: string): Promise<Record<string, number>> {
  const list = (await env.custom.listNamespacedCustomObject({
    group,
    version,
    plural: 'secretbatches',
    namespace,
  })) as {
    items: { status?: { events?: { state?: string } } }[];
  };
  const out: Record<string, number> = {};
  for (const item of list.items) {
    const state = item.status?.events?.state ?? 'none';
    out[state] = (out[state] ?? 0) + 1;
  }
  return out;
}

/** Opens `count` event streams on the project and drains them in the background. */
async function holdEventStreams(
  service: Service,
  projectId: string,
  count: number,
): Promise<EventSubscription[]> {
  const streams: EventSubscription[] = [];
  for (let i = 0; i < count; i++) {
    const stream = await service.client.events.subscribe(
      { projectId, register: [{ event: 'secret:update' }] },
      { idleTimeoutMs: 0 },
    );
    streams.push(stream);
    void (async () => {
      try {
        for await (const _frame of stream) {
          // Only holding the slot.
        }
      } catch {
        // Closed.
      }
    })();
  }
  return streams;
}

/**
 * A Project whose event subscription the service refuses (its 5 streams per project and identity
 * are taken) and `samples` SecretBatches in it; a value changed in the service in
 * each at once is restored only by the poll.
 */
export async function measureWithoutEvents(
  env: BenchEnv,
  namespace: string,
  service: Service,
  options: { samples: number; pollMs: number },
): Promise<Rows> {
  const naming = { prefix: 'quiet-', pollInterval: `${options.pollMs / 1000}s` };
  const at = { env, namespace };
  await createConnection(at, service);
  await waitConnection(env, namespace);
  await createProjects(at, 1, naming);
  await waitAllReady(
    env,
    namespace,
    { projects: 1 },
    { since: Date.now(), timeoutMs: 120_000, intervalMs: 200, log: () => undefined },
  );
  const id = await projectId(env, namespace, 'p-0');
  // The service allows 5 event streams per project and identity: hold them all, so the operator's
  // subscription is refused (429, TooManyStreams) and its batches fall back to the poll.
  const held = await holdEventStreams(service, id, 5);
  await createSources(at, options.samples, 2);
  await createBatches(at, { batches: options.samples, projects: 1 }, naming);
  await waitAllReady(
    env,
    namespace,
    { secretbatches: options.samples },
    {
      since: Date.now(),
      timeoutMs: 300_000,
      intervalMs: 500,
      log: () => undefined,
    },
  );
  // Let the reconciles that follow creation settle, so only the poll can restore a value.
  await sleep(5_000);
  const states = await eventStates(env, namespace);
  const targets: BatchTarget[] = Array.from({ length: options.samples }, (_, index) => ({
    index,
    projectId: id,
    secretPath: batchPath(index, naming),
  }));
  const samples = await driftRestoreLatencies(at, service, targets, true).finally(() => {
    for (const stream of held) stream.close();
  });
  return [
    ['service change → restored, p50 / p99 (no events: poll)', latencyText(samples)],
    ['  event subscription states of those batches', JSON.stringify(states)],
    ['  (poll interval, +≤10% jitter)', `${(options.pollMs / 1000).toFixed(0)} s`],
  ];
}

/**
 * A devserver limiting the secrets bucket to 120 requests per minute, and a Connection to it with
 * `requestsPerMinute` below that; one Project and `batches` SecretBatches of 10 keys converge.
 */
export async function measureBudget(
  env: BenchEnv,
  namespace: string,
  options: { batches: number; requestsPerMinute: number },
): Promise<{ server: { stop(): Promise<void> }; rows: Rows }> {
  const service = await startService(env.dir, 'devserver-budget', 'secrets=120');
  const naming = { prefix: 'budget-' };
  const at = { env, namespace };
  await createConnection(at, service, options.requestsPerMinute);
  await waitConnection(env, namespace);
  await service.server.resetStats();
  const started = Date.now();
  await createSources(at, options.batches, 10);
  await createProjects(at, 1, naming);
  await createBatches(at, { batches: options.batches, projects: 1 }, naming);
  const readyMs = await waitAllReady(
    env,
    namespace,
    { projects: 1, secretbatches: options.batches },
    { since: started, timeoutMs: 1_800_000, intervalMs: 1_000, log: (line) => console.log(line) },
  );
  const stats = await service.server.stats();
  const perMinute = stats.requests.total / (readyMs / 60_000);
  const secretsCalls = Object.entries(stats.requests.byRoute)
    .filter(([route]) => route.includes('/secrets'))
    .reduce((sum, [, count]) => sum + count, 0);
  await countReady(env, namespace, 'secretbatches');
  return {
    server: service.server,
    rows: [
      [
        `budget: devserver secrets=120/min, Connection ${options.requestsPerMinute}/min`,
        `1 Project + ${options.batches} SecretBatches × 10 keys`,
      ],
      ['  answers 429 (target 0)', String(stats.rateLimited)],
      ['  apply → all Ready', `${(readyMs / 1000).toFixed(1)} s`],
      ['  service calls', `${stats.requests.total} (${secretsCalls} on secrets routes)`],
      ['  achieved rate', `${perMinute.toFixed(0)} calls/min (budget ${options.requestsPerMinute})`],
    ],
  };
}
