/**
 * The operator's Kubernetes events: written in the background (`queueEvents`) after event
 * correlation (`EventCorrelator`). Routine events — what every resource records once as it
 * converges — share one budget across all resources, so a bulk apply of thousands of resources
 * does not add thousands of Event writes while the API server is busiest; Warnings and every
 * other Normal event (adoption, orphaning, abandoning) are always written.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { EventCorrelator } from '../runtime/event-correlator.ts';
import { queueEvents, type QueuedEventRecorder } from '../runtime/event-queue.ts';
import { createEventRecorder, kubeEventsApi, type EventInput } from '../runtime/events.ts';

/**
 * Normal events the managed reconciler records for every resource on its way to Ready (or out of
 * existence). A kind adds its own routine events in its registration (`routineEvents`).
 */
export const ROUTINE_EVENT_REASONS: readonly string[] = [
  'CreatedExternal',
  'UpdatedExternal',
  'PublishedSecret',
  'DeletedExternal',
];

/**
 * Whether an event is routine: Normal, and one of `ROUTINE_EVENT_REASONS` or of the reasons the
 * running kinds declare routine.
 */
export function routineEvents(kindReasons: Iterable<string>): (event: EventInput) => boolean {
  const routine = new Set([...ROUTINE_EVENT_REASONS, ...kindReasons]);
  return (event) => event.type === 'Normal' && routine.has(event.reason);
}

export interface OperatorEventsOptions {
  readonly kubeConfig: KubeConfig;
  readonly component: string;
  readonly log: Logger;
  readonly onDropped: () => void;
  readonly onSkipped: (reason: string) => void;
  /** The routine event reasons the running kinds declare besides `ROUTINE_EVENT_REASONS`. */
  readonly kindRoutineEvents: Iterable<string>;
}

/** The recorder the reconcilers use. */
export function operatorEvents(options: OperatorEventsOptions): QueuedEventRecorder {
  return queueEvents(
    createEventRecorder({
      api: kubeEventsApi(options.kubeConfig),
      component: options.component,
      log: options.log,
    }),
    {
      correlator: new EventCorrelator({ routine: routineEvents(options.kindRoutineEvents) }),
      onDropped: options.onDropped,
      onSkipped: options.onSkipped,
      log: options.log,
    },
  );
}
