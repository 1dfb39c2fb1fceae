/**
 * The target objects a WorkloadSecret writes (a Secret, a ConfigMap), as pure functions: the
 * desired object, whether an existing one is ours, whether it is up to date, and what is left of
 * an adopted one when it is released.
 *
 * Ownership: a target is ours when it carries Coffer's managed-by label and the annotation
 * `coffer.dev/delivered-by: WorkloadSecret/<name>` (stamped on every write, with either creation
 * policy), or a controller reference to this WorkloadSecret. An object that is not ours is a
 * `TargetConflict` and never modified, unless both sides agree to a take-over: the object carries
 * `coffer.dev/adopt-by: WorkloadSecret/<name>` (its writer's consent — someone who may write the
 * object, which whoever writes the WorkloadSecret may not be) and the WorkloadSecret sets
 * `adoptExisting`. Even then an object that another object controls, or that another resource
 * delivers into, is never taken over.
 *
 * With creationPolicy Owner a target Coffer created has a controller reference to the WorkloadSecret
 * (garbage collected with it); with Orphan it has none of ours and stays. An adopted target is
 * stamped `coffer.dev/adopted: "true"` and never gets our reference, whatever the policy: it
 * existed before, so it outlives the WorkloadSecret, which releases it (`releasedTarget`) when it
 * is deleted. Other owners' references are kept.
 */
import { createHash } from 'node:crypto';
import type { CreationPolicy } from '../../api/v1alpha1/index.ts';
import {
  ANNOTATION_DATA_HASH,
  controllerOf,
  controllerReference,
  isManagedByCoffer,
  LABEL_MANAGED_BY,
  MANAGED_BY_VALUE,
  type KubeObject,
  type ObjectMeta,
} from '../../runtime/object-meta.ts';
import { dataHash } from '../../runtime/secret-writer.ts';

/** Which resource delivers into a target: `WorkloadSecret/<name>` (same namespace). */
export const ANNOTATION_DELIVERED_BY = 'coffer.dev/delivered-by';
/** Hash of the target's desired metadata and data (`targetHash`): unchanged means nothing to write. */
export const ANNOTATION_TARGET_HASH = 'coffer.dev/target-hash';
/**
 * Consent to a take-over, set on an existing object by whoever may write it: `WorkloadSecret/<name>`
 * names the one WorkloadSecret (same namespace) that may adopt it. Coffer never removes it.
 */
export const ANNOTATION_ADOPT_BY = 'coffer.dev/adopt-by';
/** `"true"`, stamped by Coffer on a target it adopted: no owner reference, released on deletion. */
export const ANNOTATION_ADOPTED = 'coffer.dev/adopted';

/** Coffer's own metadata on a target, removed when an adopted target is released. */
const cofferAnnotations = [
  ANNOTATION_DATA_HASH,
  ANNOTATION_DELIVERED_BY,
  ANNOTATION_TARGET_HASH,
  ANNOTATION_ADOPTED,
];

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export type TargetKind = 'Secret' | 'ConfigMap';

/** What one target should be. */
export interface TargetSpec {
  readonly kind: TargetKind;
  readonly name: string;
  readonly namespace: string;
  /** Plain (decoded) values. */
  readonly data: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** Secrets only. */
  readonly type?: string;
  readonly immutable?: boolean;
  readonly policy: CreationPolicy;
  readonly adoptExisting: boolean;
}

/** A Secret or ConfigMap as read (`data` base64 for Secrets, plain for ConfigMaps). */
export interface TargetObject extends KubeObject {
  metadata?: ObjectMeta & { managedFields?: unknown };
  data?: Record<string, string>;
  type?: string;
  immutable?: boolean;
}

export function deliveredBy(owner: KubeObject): string {
  return `WorkloadSecret/${owner.metadata?.name ?? ''}`;
}

/** True when the target was adopted (see the module comment). */
export function isAdopted(obj: KubeObject | undefined): boolean {
  return obj?.metadata?.annotations?.[ANNOTATION_ADOPTED] === 'true';
}

/** True when the target gets a controller reference to the WorkloadSecret: policy Owner, not adopted. */
function referencesOwner(spec: TargetSpec, adopted: boolean): boolean {
  return spec.policy === 'Owner' && !adopted;
}

/** sha256 over everything Coffer sets on the target (the data through its own hash). */
export function targetHash(spec: TargetSpec, owner: KubeObject, adopted = false): string {
  const fingerprint = {
    data: dataHash(spec.data),
    labels: spec.labels,
    annotations: spec.annotations,
    type: spec.type,
    immutable: spec.immutable,
    owner: referencesOwner(spec, adopted) ? owner.metadata?.uid : null,
    ...(adopted ? { adopted } : {}),
  };
  return createHash('sha256').update(JSON.stringify(fingerprint)).digest('hex');
}

/** Decoded values of an existing target. */
export function decodedData(kind: TargetKind, obj: TargetObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(obj.data ?? {}))
    out[key] = kind === 'Secret' ? Buffer.from(value, 'base64').toString('utf8') : value;
  return out;
}

function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const controller = controllerOf(obj);
  return controller?.kind === owner.kind && controller?.name === owner.metadata?.name;
}

/** What a take-over of a foreign object still lacks: its writer's consent, the resource's opt-in. */
export type AdoptionNeed = 'consent' | 'adoptExisting';

/**
 * Whose an existing object is (see the module comment): ours, adoptable, or someone else's — then
 * `foreign` says whose and `needs` what a take-over lacks (absent: it can never be taken over).
 */
export type Ownership =
  'ours' | 'adoptable' | { readonly foreign: string; readonly needs?: readonly AdoptionNeed[] };

/** The consent annotation's value naming `owner`. */
export function adoptionConsent(owner: KubeObject): string {
  return deliveredBy(owner);
}

/** Who else holds `obj` (a controller, another resource delivering into it), or undefined. */
function heldByAnother(obj: TargetObject): string | undefined {
  const controller = controllerOf(obj);
  if (controller) return `it is controlled by ${controller.kind} ${controller.name}`;
  const by = obj.metadata?.annotations?.[ANNOTATION_DELIVERED_BY];
  if (isManagedByCoffer(obj) && by) return `${by} delivers into it`;
  return undefined;
}

/** True when `obj` is a target `owner` delivers into (see the module comment). */
function isOurs(obj: TargetObject, owner: KubeObject): boolean {
  const by = obj.metadata?.annotations?.[ANNOTATION_DELIVERED_BY];
  return isManagedByCoffer(obj) && (by === deliveredBy(owner) || isControlledBy(obj, owner));
}

/** Ours, adoptable, or someone else's (see `Ownership`). */
export function ownershipOf(obj: TargetObject, owner: KubeObject, adoptExisting: boolean): Ownership {
  if (isOurs(obj, owner)) return 'ours';
  const held = heldByAnother(obj);
  if (held) return { foreign: held };
  const consented = obj.metadata?.annotations?.[ANNOTATION_ADOPT_BY] === adoptionConsent(owner);
  if (consented && adoptExisting) return 'adoptable';
  const needs: AdoptionNeed[] = [];
  if (!consented) needs.push('consent');
  if (!adoptExisting) needs.push('adoptExisting');
  return { foreign: 'it was not created by this WorkloadSecret', needs };
}

/**
 * True when an object with these metadata and data hash (`dataHash` of its decoded data) already
 * is what `spec` asks for: nothing to write.
 */
export function isUpToDate(
  existing: KubeObject,
  existingDataHash: string,
  spec: TargetSpec,
  owner: KubeObject,
): boolean {
  const annotations = existing.metadata?.annotations ?? {};
  const adopted = isAdopted(existing);
  if (annotations[ANNOTATION_TARGET_HASH] !== targetHash(spec, owner, adopted)) return false;
  if (existingDataHash !== dataHash(spec.data)) return false;
  const controller = controllerOf(existing);
  if (referencesOwner(spec, adopted)) return controller?.uid === owner.metadata?.uid;
  return controller === undefined || !isControlledBy(existing, owner);
}

/** True when the existing object cannot be updated in place (type change, immutable). */
export function needsReplacement(existing: TargetObject, spec: TargetSpec): boolean {
  if (spec.kind !== 'Secret') return existing.immutable === true;
  return existing.immutable === true || (existing.type ?? 'Opaque') !== (spec.type ?? 'Opaque');
}

function encoded(spec: TargetSpec): Record<string, string> {
  if (spec.kind === 'ConfigMap') return { ...spec.data };
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(spec.data))
    out[key] = Buffer.from(value, 'utf8').toString('base64');
  return out;
}

/**
 * The object to create, or to replace `base` with (its resourceVersion and other owners kept);
 * `adopted` (default: `base` was adopted) stamps the adoption mark and leaves our reference out.
 */
export function desiredTarget(
  spec: TargetSpec,
  owner: KubeObject,
  base?: TargetObject,
  adopted = isAdopted(base),
): TargetObject {
  const { managedFields: _managedFields, ...metadata } = base?.metadata ?? {};
  // kubectl apply keeps the whole applied object, data included, in this annotation: not ours to keep.
  const { [LAST_APPLIED]: _lastApplied, ...kept } = metadata.annotations ?? {};
  const otherOwners = (metadata.ownerReferences ?? []).filter(
    (ref) => ref.controller !== true && ref.uid !== owner.metadata?.uid,
  );
  const ours = referencesOwner(spec, adopted) ? [controllerReference(owner)] : [];
  const ownerReferences = [...otherOwners, ...ours];
  const stamped: Record<string, string> = {
    ...kept,
    ...spec.annotations,
    [ANNOTATION_DATA_HASH]: dataHash(spec.data),
    [ANNOTATION_DELIVERED_BY]: deliveredBy(owner),
    [ANNOTATION_TARGET_HASH]: targetHash(spec, owner, adopted),
  };
  // The adoption mark is Coffer's to set: never taken from the spec's annotations.
  const { [ANNOTATION_ADOPTED]: _mark, ...annotations } = stamped;
  return {
    apiVersion: 'v1',
    kind: spec.kind,
    metadata: {
      ...metadata,
      name: spec.name,
      namespace: spec.namespace,
      labels: { ...metadata.labels, ...spec.labels, [LABEL_MANAGED_BY]: MANAGED_BY_VALUE },
      annotations: adopted ? { ...annotations, [ANNOTATION_ADOPTED]: 'true' } : annotations,
      ...(ownerReferences.length > 0 ? { ownerReferences } : { ownerReferences: [] }),
    },
    ...(spec.kind === 'Secret' ? { type: spec.type ?? 'Opaque' } : {}),
    ...(spec.immutable ? { immutable: true } : {}),
    data: encoded(spec),
  };
}

/** True when `obj` is a target `owner` adopted: ours and marked adopted. */
export function isAdoptedBy(obj: TargetObject, owner: KubeObject): boolean {
  return isAdopted(obj) && ownershipOf(obj, owner, false) === 'ours';
}

/**
 * An adopted target released: Coffer's label and annotations removed, everything else (content,
 * the owner's consent annotation, other labels and owners) as it is.
 */
export function releasedTarget(obj: TargetObject): TargetObject {
  const { managedFields: _managedFields, ...metadata } = obj.metadata ?? {};
  const labels = Object.fromEntries(
    Object.entries(metadata.labels ?? {}).filter(([k]) => k !== LABEL_MANAGED_BY),
  );
  const annotations = Object.fromEntries(
    Object.entries(metadata.annotations ?? {}).filter(([k]) => !cofferAnnotations.includes(k)),
  );
  return { ...obj, metadata: { ...metadata, labels, annotations } };
}
