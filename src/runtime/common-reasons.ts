/**
 * The condition reasons of the reconcile machinery itself, which every kind can report: the
 * conditions a reconciler sets on its way (available, reconciling, deleting, paused), a failure
 * with no more specific name, a lost write race and the Secret helpers' refusals. The floors above
 * add their own generic reasons (`src/managed/reasons.ts`: the service, connections, ownership)
 * and each kind its own (`src/controllers/<kind>/reasons.ts`). See `reasons.ts` for the classes.
 */
import { declareReasons } from './reasons.ts';

export const commonReasons = declareReasons('generic', {
  Available: {
    class: 'healthy',
    conditions: ['Ready'],
    description: 'The external object exists and is usable.',
  },
  ReconcileSuccess: {
    class: 'healthy',
    conditions: ['Synced'],
    description: 'The last reconcile succeeded.',
  },
  Unavailable: {
    class: 'progressing',
    conditions: ['Ready'],
    description: 'The external object is not available yet; the Synced condition says why.',
  },
  Deleting: {
    class: 'progressing',
    conditions: ['Ready'],
    description: 'The resource is being deleted; the external object is being removed.',
  },
  Paused: {
    class: 'suspended',
    conditions: ['Synced'],
    description: 'The coffer.dev/paused annotation stops reconciliation.',
    remedy: 'Remove the annotation to resume.',
  },
  ReconcileError: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'A failure with no more specific name; retried with backoff.',
    remedy:
      "E.g. a Kubernetes API error (`Kubernetes API answered 403: ...`: the operator's RBAC lacks something).",
  },
  Conflict: {
    class: 'waiting',
    conditions: [],
    description: 'A Kubernetes write lost a race; retried at once (never written to status).',
  },
  SecretNotFound: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'A referenced Kubernetes Secret does not exist yet.',
  },
  SecretKeyNotFound: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'A referenced Kubernetes Secret has no such key yet.',
  },
  SecretNotOwned: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The output Secret exists and is not managed by this resource; delete or rename it.',
  },
});
