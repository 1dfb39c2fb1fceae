/**
 * Writing the targets (see `target-objects.ts` for ownership and the desired objects), all or
 * nothing: every target is checked first — its Secret type's required keys, whether it exists,
 * is ours, is up to date, or may be adopted — and only when none fails is any written. Nothing is
 * written for a target that is up to date; a missing one is created; ours is replaced whole (a
 * type change or an immutable object: deleted and created); anything else is a `TargetConflict`
 * and no target at all is written. A 409 (changed concurrently) is a `ConflictError`: a silent
 * requeue, the next attempt checks again from fresh state.
 *
 * Releasing (`releaseAdopted`): when the WorkloadSecret is deleted, each target it adopted loses
 * Coffer's label and annotations and keeps its content.
 */
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { KubeCoreApi } from '../../runtime/kube-clients.ts';
import { ConflictError, kubernetesStatus, TerminalError } from '../../runtime/errors.ts';
import type { KubeObject } from '../../runtime/object-meta.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';
import type { CachedPayload } from '../../managed/direct/kind.ts';
import { dataHash } from '../../runtime/secret-writer.ts';
import { checkSecretType } from './content.ts';
import {
  adoptionConsent,
  ANNOTATION_ADOPT_BY,
  decodedData,
  desiredTarget,
  isAdopted,
  isAdoptedBy,
  isUpToDate,
  needsReplacement,
  ownershipOf,
  releasedTarget,
  type AdoptionNeed,
  type Ownership,
  type TargetKind,
  type TargetObject,
  type TargetSpec,
} from './target-objects.ts';
import { workloadSecretReasons } from './reasons.ts';

export type TargetWriteResult = 'created' | 'updated' | 'unchanged';

/** Read, create, replace and delete of one target kind. */
export interface TargetApi {
  read(namespace: string, name: string): Promise<TargetObject | undefined>;
  create(namespace: string, body: TargetObject): Promise<unknown>;
  replace(namespace: string, name: string, body: TargetObject): Promise<unknown>;
  delete(namespace: string, name: string): Promise<unknown>;
}

async function unlessMissing<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (kubernetesStatus(error) === 404) return undefined;
    throw error;
  }
}

/** The core/v1 calls targets need: the operator's core calls (client-node's signatures). */
export type TargetCoreApi = KubeCoreApi;

/** The core/v1 calls behind each target kind. */
export function targetApis(core: TargetCoreApi): Readonly<Record<TargetKind, TargetApi>> {
  return {
    Secret: {
      read: (namespace, name) =>
        unlessMissing(core.readNamespacedSecret({ namespace, name }) as Promise<TargetObject>),
      create: (namespace, body) => core.createNamespacedSecret({ namespace, body: body as V1Secret }),
      replace: (namespace, name, body) =>
        core.replaceNamespacedSecret({ namespace, name, body: body as V1Secret }),
      delete: (namespace, name) => core.deleteNamespacedSecret({ namespace, name }),
    },
    ConfigMap: {
      read: (namespace, name) =>
        unlessMissing(core.readNamespacedConfigMap({ namespace, name }) as Promise<TargetObject>),
      create: (namespace, body) => core.createNamespacedConfigMap({ namespace, body: body as V1ConfigMap }),
      replace: (namespace, name, body) =>
        core.replaceNamespacedConfigMap({ namespace, name, body: body as V1ConfigMap }),
      delete: (namespace, name) => core.deleteNamespacedConfigMap({ namespace, name }),
    },
  };
}

/** What a take-over would need, as the remedy of a conflict message. */
function remedy(owner: KubeObject, needs: readonly AdoptionNeed[] | undefined): string {
  if (!needs) return 'delete it or choose another target name';
  const steps = [
    ...(needs.includes('consent')
      ? [`annotate it ${ANNOTATION_ADOPT_BY}: ${adoptionConsent(owner)} (as someone who may write it)`]
      : []),
    ...(needs.includes('adoptExisting') ? ['set spec.target.adoptExisting: true'] : []),
  ];
  return `delete it or choose another target name; or, to let this WorkloadSecret take it over (its content replaced), ${steps.join(' and ')}`;
}

function conflict(spec: TargetSpec, owner: KubeObject, why: Exclude<Ownership, string>): TerminalError {
  return new TerminalError(
    workloadSecretReasons.names.TargetConflict,
    `${spec.kind} ${spec.namespace}/${spec.name} exists and is not this WorkloadSecret's (${why.foreign}); ` +
      `no target is written: ${remedy(owner, why.needs)}`,
  );
}

/** What to do with one target, decided before any target is written. */
type TargetPlan =
  | { readonly spec: TargetSpec; readonly action: 'unchanged' }
  | { readonly spec: TargetSpec; readonly action: 'create' }
  | {
      readonly spec: TargetSpec;
      readonly action: 'replace' | 'recreate';
      readonly existing: TargetObject;
      /** Adopted before, or taken over now: no owner reference, the mark stamped. */
      readonly adopted: boolean;
    };

/** The informer cache's view of a target (metadata and data hash, no values), if any. */
export type TargetCache = (kind: TargetKind, namespace: string, name: string) => CachedPayload | undefined;

/** True when the cache shows the target ours and up to date: no request at all. */
function cachedUpToDate(cache: TargetCache | undefined, spec: TargetSpec, owner: KubeObject): boolean {
  const cached = cache?.(spec.kind, spec.namespace, spec.name);
  if (!cached || ownershipOf(cached, owner, false) !== 'ours') return false;
  return isUpToDate(cached, cached.dataHash, spec, owner);
}

/** Decides what to do with one target; throws `TargetConflict` for one that is not ours to write. */
async function planTarget(
  api: TargetApi,
  spec: TargetSpec,
  owner: KubeObject,
  cache: TargetCache | undefined,
): Promise<TargetPlan> {
  if (cachedUpToDate(cache, spec, owner)) return { spec, action: 'unchanged' };
  const existing = await api.read(spec.namespace, spec.name);
  if (!existing) return { spec, action: 'create' };
  const ownership = ownershipOf(existing, owner, spec.adoptExisting);
  if (typeof ownership === 'object') throw conflict(spec, owner, ownership);
  const actual = dataHash(decodedData(spec.kind, existing));
  if (ownership === 'ours' && isUpToDate(existing, actual, spec, owner)) return { spec, action: 'unchanged' };
  const adopted = ownership === 'adoptable' || isAdopted(existing);
  const action = needsReplacement(existing, spec) ? 'recreate' : 'replace';
  return { spec, action, existing, adopted };
}

/** Carries out one plan. */
async function applyPlan(api: TargetApi, plan: TargetPlan, owner: KubeObject): Promise<TargetWriteResult> {
  const { spec } = plan;
  if (plan.action === 'unchanged') return 'unchanged';
  if (plan.action === 'create') {
    await api.create(spec.namespace, desiredTarget(spec, owner));
    return 'created';
  }
  if (plan.action === 'recreate') {
    await api.delete(spec.namespace, spec.name);
    // A new object: the old one's identity (uid, resourceVersion) does not carry over.
    const {
      uid: _uid,
      resourceVersion: _rv,
      creationTimestamp: _at,
      ...metadata
    } = plan.existing.metadata ?? {};
    await api.create(spec.namespace, desiredTarget(spec, owner, { metadata }, plan.adopted));
    return 'updated';
  }
  await api.replace(spec.namespace, spec.name, desiredTarget(spec, owner, plan.existing, plan.adopted));
  return 'updated';
}

/** `write()`, with a 409 (the object changed since it was read) as a `ConflictError`. */
async function concurrently<T>(spec: { kind: string; name: string }, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (kubernetesStatus(error) === 409)
      throw new ConflictError(
        commonReasons.names.Conflict,
        `cannot write ${spec.kind} ${spec.name}: it changed concurrently`,
        { cause: error },
      );
    throw error;
  }
}

/** What was done to one target. */
export interface TargetResult {
  readonly kind: TargetKind;
  readonly name: string;
  readonly result: TargetWriteResult;
}

/**
 * Writes the targets all or nothing (see the module comment); values never appear in errors.
 * With `cache`, a target the informer cache shows up to date costs no request (a cache behind a
 * change only costs the GET of the slow path).
 */
export async function deliverTargets(
  apis: Readonly<Record<TargetKind, TargetApi>>,
  specs: readonly TargetSpec[],
  owner: KubeObject,
  cache?: TargetCache,
): Promise<TargetResult[]> {
  for (const spec of specs) if (spec.kind === 'Secret') checkSecretType(spec.type ?? 'Opaque', spec.data);
  const plans: TargetPlan[] = [];
  for (const spec of specs) plans.push(await planTarget(apis[spec.kind], spec, owner, cache));
  const results: TargetResult[] = [];
  for (const plan of plans) {
    const result = await concurrently(plan.spec, () => applyPlan(apis[plan.spec.kind], plan, owner));
    results.push({ kind: plan.spec.kind, name: plan.spec.name, result });
  }
  return results;
}

/**
 * Releases the targets `owner` adopted among `targets`: Coffer's label and annotations removed,
 * the content left as last delivered (not restored). A target that is gone, or not one `owner`
 * adopted, is left alone. Returns how many were released.
 */
export async function releaseAdopted(
  apis: Readonly<Record<TargetKind, TargetApi>>,
  owner: KubeObject,
  targets: readonly { readonly kind: TargetKind; readonly name: string }[],
): Promise<number> {
  const namespace = owner.metadata?.namespace ?? '';
  let released = 0;
  for (const target of targets) {
    const api = apis[target.kind];
    const existing = await api.read(namespace, target.name);
    if (!existing || !isAdoptedBy(existing, owner)) continue;
    await concurrently(target, () => api.replace(namespace, target.name, releasedTarget(existing)));
    released += 1;
  }
  return released;
}
