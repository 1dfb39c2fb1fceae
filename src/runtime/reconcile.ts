/**
 * The reconcile contract shared by every controller (level-based, as in controller-runtime).
 *
 * A request is only a key: the reconciler reads current state from caches and the API server,
 * never from the event that triggered it. A reconcile either finishes (optionally asking to be
 * run again after a delay) or throws; thrown errors are classified by `classifyError` in
 * `errors.ts`, and each class has exactly one handling in the controller.
 */
import type { Logger } from 'pino';

/** Identifies one object. `namespace` is undefined for cluster-scoped kinds. */
export interface Request {
  readonly namespace?: string;
  readonly name: string;
}

/** What a successful reconcile asks for. An empty result means "done until something changes". */
export interface Result {
  /** Run this key again after this many milliseconds (the poll interval, an expiry, ...). */
  readonly requeueAfterMs?: number;
  /**
   * The requeued run must start within this many milliseconds (a lease expires then): once due it
   * goes ahead of other work until then (see `WorkQueue`). Only with `requeueAfterMs`.
   */
  readonly requeueBeforeMs?: number;
}

/** Per-reconcile context handed to a reconciler by the controller. */
export interface ReconcileContext {
  /** Aborted when the manager shuts down or loses leadership. */
  readonly signal: AbortSignal;
  /** Child logger bound to the controller name and the request key. */
  readonly log: Logger;
}

/** A reconciler for one kind. */
export type Reconciler = (request: Request, context: ReconcileContext) => Promise<Result>;

/** The queue key of a request: `namespace/name`, or `name` for cluster-scoped objects. */
export function requestKey(request: Request): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

/** Inverse of `requestKey`. */
export function parseRequestKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
