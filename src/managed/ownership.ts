/**
 * Which service objects a resource may touch. The rules (docs/concepts.md, "Ownership"):
 *
 * 1. **No implicit adoption.** A resource without `coffer.dev/external-id` creates its object. If
 *    the service already holds one with the same natural key, the resource stops with
 *    `AlreadyExists`, naming the object's id and the annotation that adopts it.
 * 2. **Recovery of Coffer's own interrupted create** is the one exception: with the operator's
 *    create-pending mark set (the `coffer.dev/create-pending` annotation and
 *    `status.createPending` hold the same time, create-mark.ts), a single match created after
 *    the mark (less the clock-skew allowance) is adopted; several, or one whose creation time the
 *    service does not report, stop with `CreateIncomplete`; matches older than the mark are
 *    someone else's (rule 1). The annotation alone is no mark: a manifest may set it, but not
 *    status (users are not granted the status subresource), so a forged annotation meets rule 1
 *    on create and leaves the object alone on delete.
 * 3. **Explicit adoption** (the annotation names an id the resource has not recorded in
 *    `status.id` yet) is allowed through a Connection; through a ClusterConnection only from the
 *    namespaces its `spec.adoption.allowedNamespaces` admits (checked in the connection resolver,
 *    reason `AdoptionNotAllowed`).
 * 4. **Protected objects** (an identity some Connection authenticates as, or one a Bootstrap
 *    created; the adapter says which via `protection`) are never created into, changed or
 *    deleted unless the resource sets `coffer.dev/manage-protected: "true"`, with one exception:
 *    an identity a resource created itself stays that resource's to manage, and so do the
 *    resources that act on it through that resource (`identityRef`). "Created itself" is
 *    `status.createdId`, written by the operator only after its own create returned the id
 *    (status is never written by users); an object adopted by annotation, or recovered after an
 *    interrupted create (the operator never saw that create return the id), stays protected. The
 *    check runs only when a create, update or delete is about to happen: a reconcile with nothing
 *    to write never reports a refusal, and `ObserveOnly` may always observe. Reason
 *    `ProtectedObject`. The operator records `status.createdId` with the status that ends the
 *    reconcile which recorded the id (create.ts); stopped in between, it counts the object as
 *    adopted (protected, the opt-in lifts it).
 *
 * A resource being deleted whose object it was never allowed to manage (rules 3 and 4) leaves
 * the object in place and lets go.
 */
import { TerminalError } from '../runtime/errors.ts';
import {
  ANNOTATION_CREATE_PENDING,
  ANNOTATION_EXTERNAL_ID,
  ANNOTATION_MANAGE_PROTECTED,
  annotationPatch,
  getAnnotation,
  isAnnotationTrue,
  patchGuarded,
} from '../runtime/object-meta.ts';
import type {
  AdapterStatus,
  Creator,
  ExternalClient,
  ExternalContext,
  ManagedObject,
  ManagedSpecFields,
  NaturalKeyMatch,
} from './external-client.ts';
import { createMarkOf, hasUnconfirmedMark, type Marked } from './create-mark.ts';
import { view, type Run } from './run.ts';
import { isObserveOnly } from './spec.ts';
import { managedReasons } from './reasons.ts';

/** Condition reason: an object with this resource's natural key exists and was not created by it. */
export const ALREADY_EXISTS = managedReasons.names.AlreadyExists;
/** Condition reason: an interrupted create cannot be resolved automatically. */
export const CREATE_INCOMPLETE = managedReasons.names.CreateIncomplete;
/** Condition reason: the object is protected and the resource did not opt in. */
export const PROTECTED_OBJECT = managedReasons.names.ProtectedObject;
/** Condition reason: a ClusterConnection does not allow adoption from the resource's namespace. */
export const ADOPTION_NOT_ALLOWED = managedReasons.names.AdoptionNotAllowed;

/** Reasons that mean "this resource may not write to the object it names". */
const notOursReasons = new Set<string>([PROTECTED_OBJECT, ADOPTION_NOT_ALLOWED]);

/** True for an error saying the resource may not manage the object it names (rules 3 and 4). */
export function isNotOurs(error: unknown): error is TerminalError {
  return error instanceof TerminalError && notOursReasons.has(error.reason);
}

/**
 * True when the resource names an object by annotation that it has not recorded as its own in
 * `status.id` (written only by the operator): an explicit adoption not yet confirmed.
 */
export function isAdopting(obj: Pick<ManagedObject<unknown>, 'metadata' | 'status'>): boolean {
  const id = getAnnotation(obj, ANNOTATION_EXTERNAL_ID);
  return id !== undefined && obj.status?.id !== id;
}

function listIds(ids: readonly string[]): string {
  return ids.slice(0, 5).join(', ') + (ids.length > 5 ? ', ...' : '');
}

/**
 * Rule 1: throws `AlreadyExists` for objects found by natural key. A no-op patch guarded by
 * resourceVersion first makes sure the resource was not read from a stale cache (where the id of
 * an object this resource created may not be visible yet): then it throws a silent conflict.
 */
export async function refuseForeign<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  ids: readonly string[],
): Promise<never> {
  run.obj = await patchGuarded(
    run.settings.patcher,
    run.obj,
    annotationPatch(run.obj, {}),
    'check ownership',
  );
  const [first] = ids;
  const which =
    ids.length === 1
      ? `an object with this resource's natural key already exists in the service (id ${first})`
      : `${ids.length} objects with this resource's natural key already exist in the service (${listIds(ids)})`;
  const unconfirmed = hasUnconfirmedMark(run.obj)
    ? `; the ${ANNOTATION_CREATE_PENDING} annotation does not make it this resource's (Coffer recovers ` +
      `an interrupted create only from its own mark, which it also records in status.createPending)`
    : '';
  throw new TerminalError(
    ALREADY_EXISTS,
    `${which} and was not created by this resource${unconfirmed}; Coffer never takes over an object implicitly: ` +
      `to manage it, set the annotation ${ANNOTATION_EXTERNAL_ID}: "${first ?? ''}" ` +
      '(with managementPolicy ObserveOnly to only observe it), or change the name or slug in the spec',
  );
}

/** Milliseconds since the epoch of an RFC 3339 time; undefined when absent or invalid. */
function timeOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Rule 2: the match to adopt after an interrupted create, undefined when none of the matches was
 * created after the operator's mark (`createMarkOf`, less `skewMs`). Throws `CreateIncomplete`
 * when that cannot be decided: several candidates, a candidate the service does not date, or no
 * mark with a valid time.
 */
export function recoveryMatch(
  obj: Marked,
  matches: readonly NaturalKeyMatch[],
  skewMs: number,
): string | undefined {
  if (matches.length === 0) return undefined;
  const hint =
    `check in the service which one this resource created, set the ${ANNOTATION_EXTERNAL_ID} annotation ` +
    `to its id and remove the ${ANNOTATION_CREATE_PENDING} annotation`;
  const markedAt = timeOf(createMarkOf(obj));
  if (markedAt === undefined)
    throw new TerminalError(
      CREATE_INCOMPLETE,
      `a create was interrupted and the ${ANNOTATION_CREATE_PENDING} annotation holds no valid time, ` +
        `so the matching objects (${listIds(matches.map((m) => m.id))}) cannot be told apart: ${hint}`,
    );
  const candidates = matches.filter((match) => {
    const createdAt = timeOf(match.createdAt);
    return createdAt === undefined || createdAt >= markedAt - skewMs;
  });
  const [only] = candidates;
  if (!only) return undefined;
  if (candidates.length > 1)
    throw new TerminalError(
      CREATE_INCOMPLETE,
      `a create was interrupted and ${candidates.length} external objects created since may be the one it made ` +
        `(${listIds(candidates.map((m) => m.id))}): ${hint}`,
    );
  if (timeOf(only.createdAt) === undefined)
    throw new TerminalError(
      CREATE_INCOMPLETE,
      `a create was interrupted and the service does not report when the matching object ${only.id} ` +
        `was created, so Coffer cannot tell whether this resource made it: ${hint}`,
    );
  return only.id;
}

/** True when `creator` recorded that it created the object `id` itself (`status.createdId`). */
export function createdBy(creator: Creator | undefined, id: string): boolean {
  return creator?.status?.createdId === id;
}

/** How a refusal names the creator: "this resource", or its kind and name. */
function nameOf(creator: Creator, ownUid: string | undefined): string {
  const uid = creator.metadata?.uid;
  if (uid !== undefined && uid === ownUid) return 'this resource';
  return `${creator.kind ?? 'the resource'} ${creator.metadata?.name ?? ''}`;
}

/**
 * Rule 4: throws `ProtectedObject` when the adapter reports the object protected, its creator
 * (the resource itself, or the Identity it acts through) did not record creating it, and the
 * resource did not opt in. Call it only right before a create, update or delete. ObserveOnly
 * resources are never refused (they do not write).
 */
export function assertMayWrite<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  client: ExternalClient<Spec, Refs, Status>,
  context: ExternalContext<Refs>,
): void {
  if (isObserveOnly(run.spec)) return;
  const protection = client.protection?.(view(run), context);
  if (!protection || createdBy(protection.creator, protection.id)) return;
  if (isAnnotationTrue(run.obj, ANNOTATION_MANAGE_PROTECTED)) return;
  const creator = protection.creator
    ? ` and ${nameOf(protection.creator, run.obj.metadata.uid)} did not create it`
    : '';
  throw new TerminalError(
    PROTECTED_OBJECT,
    `${protection.reason}${creator}: Coffer never changes or deletes it unless the resource names it by id ` +
      `(${ANNOTATION_EXTERNAL_ID}) and sets ${ANNOTATION_MANAGE_PROTECTED}: "true"; ` +
      'use managementPolicy ObserveOnly to only observe it',
  );
}
