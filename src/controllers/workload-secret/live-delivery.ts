/**
 * What keeps a WorkloadSecret live between spec changes: when its sources are read
 * (`triggers/`: one shared event subscription per project, the resync as fallback, no reads at
 * rest) and whom a change of content restarts (`rollout/`). `sync.ts` asks it for the source
 * reader of each delivery and hands it the outcome to complete (restart status, next look).
 */
import type { WorkloadSecretSpec } from '../../api/v1alpha1/index.ts';
import type { DirectOutcome, DirectServices } from '../../managed/direct/kind.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import type { Request } from '../../runtime/reconcile.ts';
import type { ResolvedConnection } from '../kind-controller.ts';
import { projectEventHub } from '../project-events/index.ts';
import type { Delivery } from './deliver.ts';
import { appsWorkloadApi, RolloutRestarts, type RolloutSubject } from './rollout/index.ts';
import type { SourceContext, SourceRead } from './sources.ts';
import { DeliveryTriggers } from './triggers/index.ts';
import { projectIdOfRead, sourceScopes } from './triggers/source-scopes.ts';
import type { WorkloadSecretStatusFields } from './sync.ts';

const KIND = 'WorkloadSecret';

type Obj = ManagedObject<WorkloadSecretSpec>;
type Outcome = DirectOutcome<WorkloadSecretStatusFields>;

/** Reads the sources of one delivery: each with `readOne(index)`, or what is still good. */
export type SourcesReader = (readOne: (index: number) => Promise<SourceRead>) => Promise<SourceRead[]>;

export class LiveDelivery {
  private readonly triggers: DeliveryTriggers<SourceRead>;
  private readonly rollout: RolloutRestarts;

  constructor(services: DirectServices) {
    this.triggers = new DeliveryTriggers<SourceRead>(services, KIND, { projectIdOf: projectIdOfRead });
    this.rollout = new RolloutRestarts(appsWorkloadApi((req) => services.kubeRequest(req)));
  }

  /** The source reader of one delivery of `obj` (registers its sources for events first). */
  async sourcesReader(obj: Obj, connection: ResolvedConnection, ctx: SourceContext): Promise<SourcesReader> {
    const scopes = await sourceScopes(obj, ctx);
    return (readOne) => this.triggers.read(obj, connection, scopes, readOne);
  }

  /** `outcome` of a delivery, completed with the rollout (restart, status) and the next look. */
  async finish(obj: Obj, delivery: Delivery, outcome: Outcome, now: Date): Promise<Outcome> {
    const targets = delivery.targets.map((t) => t.name);
    const subject = { ...obj, status: obj.status as RolloutSubject['status'] };
    const rollout = await this.rollout.afterDelivery(subject, { hash: delivery.contentHash, targets }, now);
    const next = this.triggers.requeueAfterMs(obj);
    const status = outcome.status && {
      ...outcome.status,
      ...(rollout.lastRestart ? { lastRestart: rollout.lastRestart } : {}),
      ...(rollout.pendingRestart ? { pendingRestart: rollout.pendingRestart } : {}),
    };
    return {
      ...outcome,
      ...(status ? { status } : {}),
      requeueAfterMs: Math.min(next, rollout.requeueAfterMs ?? next),
      events: [...(outcome.events ?? []), ...rollout.events],
    };
  }

  /** `request` is gone. */
  forget(request: Request): void {
    this.triggers.forget(request);
    this.rollout.forget(request);
  }
}

/** Opens the kind's event streams while leading (`startBackground`). */
export function startLiveDelivery(services: DirectServices, signal: AbortSignal): void {
  projectEventHub(services, KIND).start(signal);
}
