/**
 * The condition reasons every kind can report: set by the generic reconcilers, the service-error
 * classification, ownership and deletion rules, connection admission and the Secret helpers.
 * Kinds add their own in `src/controllers/<kind>/reasons.ts`. See `reasons.ts` for the classes.
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
  },
  ReconcileError: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'A failure with no more specific name; retried with backoff.',
  },
  ServiceUnreachable: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'The service cannot be reached; retried with backoff.',
  },
  ServiceUnavailable: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'The service answered with a server error; retried with backoff.',
  },
  RateLimited: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'The service asked to slow down; retried after its Retry-After.',
  },
  Conflict: {
    class: 'waiting',
    conditions: [],
    description: 'A Kubernetes write lost a race; retried at once (never written to status).',
  },
  ReferenceNotReady: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'A referenced resource (Connection, Project, Identity, ...) is missing or not Ready yet.',
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
  CredentialsNotFound: {
    class: 'waiting',
    conditions: ['Ready', 'Synced'],
    description: 'A Secret (or key) holding the credentials does not exist yet.',
  },
  DeletionWaiting: {
    class: 'waiting',
    conditions: ['Ready'],
    description: 'A connection being deleted waits for the resources that use it (status.waitingFor).',
  },
  InvalidSpec: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The spec is invalid beyond what the CRD schema checks; fix the spec.',
  },
  CrossNamespaceReference: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'A reference names another namespace where this kind does not allow it; fix the spec.',
  },
  Rejected: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The service refused the request (400, 422 or another 4xx); fix the spec.',
  },
  NotFound: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      'The external object does not exist (a 404, or managementPolicy ObserveOnly on an object nobody created).',
  },
  TooLarge: {
    class: 'terminal',
    conditions: ['Synced'],
    description: "The request is larger than the service's body limit; split the data across resources.",
  },
  Unauthorized: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      "The service did not accept the connection's credentials (401); retried at the poll interval.",
  },
  Forbidden: {
    class: 'terminal',
    conditions: ['Synced'],
    description: "The connection's identity lacks a permission (403); retried at the poll interval.",
  },
  AlreadyExists: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      'An object with this natural key exists and was not created by this resource; name it by id to adopt it.',
  },
  CreateIncomplete: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'An interrupted create cannot be resolved automatically; the message says what to check.',
  },
  ProtectedObject: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The object is protected (e.g. a connection identity) and the resource did not opt in.',
  },
  AdoptionNotAllowed: {
    class: 'terminal',
    conditions: ['Synced'],
    description: "The ClusterConnection's spec.adoption does not allow adoption from this namespace.",
  },
  NamespaceNotAllowed: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The referenced ClusterConnection does not admit this namespace.',
  },
  DeletionBlocked: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      'The service refuses to delete the object (deletion protection); lift it, or abandon the object.',
  },
  SpecMismatch: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The external object found differs from the spec in a field that cannot change.',
  },
  SecretNotOwned: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The output Secret exists and is not managed by this resource; delete or rename it.',
  },
});
