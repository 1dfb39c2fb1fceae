/**
 * The reconcile of a WorkloadSecret (direct reconciler: it mirrors no service object): resolve the
 * connection (a Connection of the namespace, or a ClusterConnection admitting it — never another
 * namespace's credentials), run one delivery (`deliver.ts`), and report it.
 *
 * | situation                                  | Ready                  | Synced                        |
 * |--------------------------------------------|------------------------|-------------------------------|
 * | delivered (written or already up to date)  | True `Available`       | True                          |
 * | project/environment/folder missing         | unchanged              | False `SourceNotFound` (waits)|
 * | template error                             | unchanged              | False `TemplateError`         |
 * | invalid key / content over 1 MiB           | unchanged              | False `InvalidKey`/`TooLarge` |
 * | a value not well-formed Unicode            | unchanged              | False `InvalidValue`          |
 * | a Secret type's required keys missing      | unchanged              | False `InvalidSpec`           |
 * | a target exists and is not ours            | unchanged              | False `TargetConflict`        |
 * | connection not Ready, Project not Ready    | unchanged              | False `ReferenceNotReady`     |
 *
 * Failures are thrown and classified by the direct reconciler; on every failure the targets are
 * left as they are. With `adoptExisting` it carries Coffer's finalizer and releases the targets it
 * adopted when deleted (`release.ts`). The next full read is `spec.resyncInterval` (default 10m) away, with jitter.
 */
import type { WorkloadSecretSpec, WorkloadSecretStatus } from '../../api/v1alpha1/index.ts';
import type { DirectOutcome, DirectServices, DirectSync } from '../../managed/direct/kind.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { Reasons } from '../../runtime/conditions.ts';
import { jitter, parseDuration } from '../../runtime/duration.ts';
import { deliver, type Delivery } from './deliver.ts';
import { LiveDelivery } from './live-delivery.ts';
import { LeaseHolder } from './leases/holder.ts';
import type { LeaseRound } from './leases/round.ts';
import { adoptedTargetsRelease } from './release.ts';
import { forgetRender } from './template/render.ts';
import { targetApis } from './targets.ts';

/** Full resync interval when the spec sets none. */
export const DEFAULT_RESYNC_MS = 10 * 60_000;

/** The kind's own status fields (besides conditions and observedGeneration). */
export type WorkloadSecretStatusFields = Omit<
  WorkloadSecretStatus,
  'conditions' | 'observedGeneration' | 'id'
> &
  Record<string, unknown>;

/** The resync interval of `obj`. */
export function resyncIntervalMs(spec: WorkloadSecretSpec): number {
  return spec.resyncInterval ? parseDuration(spec.resyncInterval) : DEFAULT_RESYNC_MS;
}

function targetsText(delivery: Delivery): string {
  return delivery.targets.map((t) => `${t.kind} ${t.name}`).join(' and ');
}

/**
 * Status fields after `delivery`; `lastRestart` (written by the rollout) is carried over, and
 * `pendingRestart` is left to the rollout (`live-delivery.ts`): absent unless it sets it again.
 */
export function statusAfter(
  previous: Partial<WorkloadSecretStatusFields> | undefined,
  delivery: Delivery,
  now: Date,
): WorkloadSecretStatusFields {
  const lastSyncTime =
    delivery.changed || !previous?.lastSyncTime ? now.toISOString() : previous.lastSyncTime;
  return {
    contentHash: delivery.contentHash,
    secretCount: delivery.secretCount,
    lastSyncTime,
    sources: [...delivery.sources],
    collisions: delivery.collisions.slice(0, 100),
    ...(delivery.inputsHash ? { inputsHash: delivery.inputsHash } : {}),
    ...(previous?.lastRestart ? { lastRestart: previous.lastRestart } : {}),
  };
}

/**
 * `outcome` with the lease round's status and its next renewal or revocation; that run is due
 * before the earliest held lease expires (it goes ahead of other work when the queue is deep).
 */
function withLeases(
  outcome: DirectOutcome<WorkloadSecretStatusFields>,
  round: LeaseRound | undefined,
): DirectOutcome<WorkloadSecretStatusFields> {
  if (!round) return outcome;
  const due = round.nextDueMs();
  const expiry = round.untilExpiryMs();
  const requeue = outcome.requeueAfterMs ?? undefined;
  return {
    ...outcome,
    ...(outcome.status ? { status: { ...outcome.status, ...round.status() } } : {}),
    ...(due !== undefined ? { requeueAfterMs: Math.min(due, requeue ?? due) } : {}),
    ...(due !== undefined && expiry !== undefined ? { requeueBeforeMs: expiry } : {}),
  };
}

/** The outcome of a successful delivery. */
export function deliveredOutcome(
  obj: ManagedObject<WorkloadSecretSpec>,
  delivery: Delivery,
  now: Date,
): DirectOutcome<WorkloadSecretStatusFields> {
  const where = targetsText(delivery);
  const previous = obj.status;
  return {
    ready: {
      status: 'True',
      reason: Reasons.Available,
      message: `${delivery.secretCount} keys delivered to ${where}`,
    },
    status: statusAfter(previous, delivery, now),
    requeueAfterMs: jitter(resyncIntervalMs(obj.spec), 0.1),
    events: delivery.changed
      ? [
          {
            type: 'Normal',
            reason: 'Delivered',
            message: `${delivery.secretCount} keys delivered to ${where} (content hash ${delivery.contentHash})`,
          },
        ]
      : [],
  };
}

/** The sync of WorkloadSecret. */
export function workloadSecretSync(
  services: DirectServices,
): DirectSync<WorkloadSecretSpec, WorkloadSecretStatusFields> {
  const apis = targetApis(services.core);
  const live = new LiveDelivery(services);
  const holder = new LeaseHolder(services);
  const adopted = adoptedTargetsRelease(apis);
  return {
    async sync(obj, ctx) {
      const connection = await services.connectionFor(obj);
      const targetCache = services.cachedPayload?.bind(services);
      const base = { client: connection.client, services, apis, signal: ctx.signal, targetCache };
      const readSources = await live.sourcesReader(obj, connection, base);
      const leases = await holder.begin(obj, { ...base, now: ctx.now });
      let delivery: Delivery;
      try {
        delivery = await deliver(obj, { ...base, readSources, ...(leases ? { leases } : {}) });
      } catch (error) {
        await leases?.round.abandon();
        throw error;
      }
      const outcome = await live.finish(obj, delivery, deliveredOutcome(obj, delivery, ctx.now), ctx.now);
      // After the rollout and triggers: the next renewal or revocation may come sooner.
      return withLeases(outcome, leases?.round);
    },
    forget: (request) => {
      live.forget(request);
      forgetRender(request);
    },
    release: {
      holds: (obj) => adopted.holds(obj) || obj.spec.sources.some((s) => s.dynamicSecret !== undefined),
      async release(obj, ctx) {
        if ((obj.spec as Partial<WorkloadSecretSpec> | undefined)?.target?.adoptExisting)
          await adopted.release(obj, ctx);
        const connection = await services.connectionFor(obj);
        const base = { client: connection.client, services, signal: ctx.signal, now: ctx.now };
        await holder.release(obj, connection.client, base);
      },
    },
  };
}
