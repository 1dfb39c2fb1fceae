/**
 * The status every kind shares: kstatus-compatible conditions (`Ready`, `Synced`) with
 * `observedGeneration`, and the id of the mirrored service object.
 */
import { z } from 'zod';
import { listMap } from './schema-helpers.ts';

export const conditionStatuses = ['True', 'False', 'Unknown'] as const;

/** One condition, in the shape of Kubernetes' metav1.Condition. */
export const condition = z.object({
  type: z
    .string()
    .min(1)
    .max(316)
    .describe(
      "Condition type: Ready (the service object exists and matches the spec), Synced (the last reconcile succeeded), or kstatus's Stalled (True: a person must act) and Reconciling (True: work under way or waiting).",
    ),
  status: z.enum(conditionStatuses).describe('True, False or Unknown.'),
  reason: z
    .string()
    .max(1024)
    .optional()
    .describe(
      'CamelCase reason for the last transition, e.g. Available, ReferenceNotReady, InvalidSpec, Expired.',
    ),
  message: z
    .string()
    .max(32768)
    .optional()
    .describe('Human-readable detail; stable (no timestamps or request ids).'),
  lastTransitionTime: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('When status last changed (RFC 3339).'),
  observedGeneration: z
    .int()
    .min(0)
    .optional()
    .describe('metadata.generation of the spec this condition was computed from.'),
});
export type Condition = z.output<typeof condition>;

/** Status fields present on every kind; spread into each kind's status object. */
export const commonStatusFields = {
  conditions: listMap(condition, ['type'], 16)
    .optional()
    .describe(
      'Current state: Ready and Synced conditions, each with reason, message and observedGeneration; Stalled or Reconciling (True) while Ready is not True, for kstatus.',
    ),
  observedGeneration: z
    .int()
    .min(0)
    .optional()
    .describe(
      'metadata.generation of the spec last reconciled; status is current when it equals metadata.generation.',
    ),
  id: z
    .string()
    .max(256)
    .optional()
    .describe(
      'Id of the object in the service (external id), once it exists. Also recorded in the coffer.dev/external-id annotation.',
    ),
  lastHandledReconcileAt: z
    .string()
    .max(256)
    .optional()
    .describe(
      'The last value of the coffer.dev/reconcile-requested-at annotation that was handled: set the annotation to a new value to force a reconcile now.',
    ),
};

/**
 * Status fields of the kinds that mirror a service object (the managed reconciler): the common
 * ones, the id of the object the resource created itself and the operator's create-pending mark.
 */
export const managedStatusFields = {
  ...commonStatusFields,
  createdId: z
    .string()
    .max(256)
    .optional()
    .describe(
      "Id of the service object this resource created itself (not adopted), recorded by the operator after the create. An identity a resource created stays that resource's to manage even when protected (a Connection authenticates as it).",
    ),
  createPending: z.iso
    .datetime({ offset: true })
    .optional()
    .describe(
      'Set by the operator just before it creates the service object, with the same time as the coffer.dev/create-pending annotation, and cleared once the id is recorded. A create interrupted in between is recovered only when both hold the same time: the annotation alone is not trusted.',
    ),
};

/** The common status alone, for kinds with nothing else to report. */
export const commonStatus = z
  .object(commonStatusFields)
  .describe('Observed state of the resource, written by the operator.');
export type CommonStatus = z.output<typeof commonStatus>;
