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

/** Normal events every resource records on its way to Ready (or out of existence). */
export const ROUTINE_EVENT_REASONS: ReadonlySet<string> = new Set([
  'CreatedExternal',
  'UpdatedExternal',
  'PublishedSecret',
  'DeletedExternal',
  // A WorkloadSecret's delivery of changed content (its status carries the hash and time).
  'Delivered',
]);

/** Whether `event` is routine (Normal, one of `ROUTINE_EVENT_REASONS`). */
export function isRoutineEvent(event: EventInput): boolean {
  return event.type === 'Normal' && ROUTINE_EVENT_REASONS.has(event.reason);
}

export interface OperatorEventsOptions {
  readonly kubeConfig: KubeConfig;
  readonly component: string;
  readonly log: Logger;
  readonly onDropped: () => void;
  readonly onSkipped: (reason: string) => void;
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
      correlator: new EventCorrelator({ routine: isRoutineEvent }),
      onDropped: options.onDropped,
      onSkipped: options.onSkipped,
      log: options.log,
    },
  );
}
