/**
 * The generic condition reasons of the managed floor, which every kind can report besides the
 * reconcile machinery's (`src/runtime/common-reasons.ts`): the service's answers as classified once
 * (`service-errors.ts`), references and connections, ownership, creation and deletion rules, spec
 * checks. Kinds add their own in `src/controllers/<kind>/reasons.ts`.
 */
import { declareReasons } from '../runtime/reasons.ts';

export const managedReasons = declareReasons('generic', {
  InvalidSpec: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The spec is invalid beyond what the CRD schema checks; fix the spec.',
    remedy:
      'The message names the field (e.g. a secret with no value source, or a temporary window that would end after 9999-12-31T23:59:59Z); not retried until the spec changes.',
  },
  ServiceUnreachable: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'The service cannot be reached; retried with backoff.',
    remedy: 'Connection refused, DNS, TLS or a timeout: check `spec.url`, network policies and TLS settings.',
  },
  ServiceUnavailable: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'The service answered with a server error; retried with backoff.',
    remedy: '5xx or 408; every other 4xx is a client error and is not retried.',
  },
  RateLimited: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'The service asked to slow down; retried after its Retry-After.',
    remedy: 'Lower `requestsPerMinute` on the Connection if it lasts.',
  },
  ReferenceNotReady: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'A referenced resource (Connection, Project, Identity, ...) is missing or not Ready yet.',
    remedy: 'Fix the referenced one; this resource follows on its own.',
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
  CrossNamespaceReference: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'A reference names another namespace where this kind does not allow it; fix the spec.',
  },
  Rejected: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The service refused the request (400, 422 or another 4xx); fix the spec.',
    remedy:
      "The service's message is shown, with the status for a 4xx other than 400/422 (405, 410, 415, ...). Fix the spec, or adopt the existing object; not retried until the resource changes.",
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
    description:
      "The request is larger than the service's body limit, or (WorkloadSecret) the content to deliver is larger than a Secret or ConfigMap may hold; the message gives the size. Split the data across resources.",
    remedy:
      'Both limits are 1 MiB; the client refuses a larger body before sending (the service itself would answer 500). Not retried until the resource changes.',
  },
  Unauthorized: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      "The service did not accept the connection's credentials (401); retried at the poll interval.",
    remedy: "Fix the Connection's Secret.",
  },
  Forbidden: {
    class: 'terminal',
    conditions: ['Synced'],
    description: "The connection's identity lacks a permission (403); retried at the poll interval.",
    remedy: 'Grant the permission in the service.',
  },
  AlreadyExists: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      'An object with this natural key exists and was not created by this resource; name it by id to adopt it.',
    remedy:
      'The message names the id: set `coffer.dev/external-id` to it to adopt the object, or change the name; Coffer never takes it over on its own.',
  },
  CreateIncomplete: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'An interrupted create cannot be resolved automatically; the message says what to check.',
    remedy:
      'Check which service object is ours, set `coffer.dev/external-id` to it and remove `coffer.dev/create-pending`.',
  },
  ProtectedObject: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The object is protected (e.g. a connection identity) and the resource did not opt in.',
    remedy:
      'Name it by id and set `coffer.dev/manage-protected: "true"` if you really mean it, or use `managementPolicy: ObserveOnly`.',
  },
  AdoptionNotAllowed: {
    class: 'terminal',
    conditions: ['Synced'],
    description: "The ClusterConnection's spec.adoption does not allow adoption from this namespace.",
    remedy: 'An administrator admits the namespace there, or remove the annotation.',
  },
  NamespaceNotAllowed: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The referenced ClusterConnection does not admit this namespace.',
    remedy:
      "Add the namespace to the ClusterConnection's `allowedNamespaces`, or use a Connection in this namespace.",
  },
  DeletionBlocked: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      'The service refuses to delete the object (deletion protection); lift it, or abandon the object.',
    remedy: 'Lift the protection in the service, or set `coffer.dev/abandon: "true"`.',
  },
  SpecMismatch: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The external object found differs from the spec in a field that cannot change.',
    remedy: 'Point `coffer.dev/external-id` at the right object, or fix the spec.',
  },
  InvalidKey: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      'A key is not valid where it goes (a service key pushed by a SecretBatch; a Secret/ConfigMap key delivered by a WorkloadSecret, [-._a-zA-Z0-9]+ of at most 253, not starting with ..); the message names it.',
  },
});
