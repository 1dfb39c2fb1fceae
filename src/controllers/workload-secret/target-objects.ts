/**
 * The target objects a WorkloadSecret writes (a Secret, a ConfigMap), as pure functions: the
 * desired object, whether an existing one is ours, and whether it is up to date.
 *
 * Ownership: a target is ours when it carries Coffer's managed-by label and the annotation
 * `coffer.dev/delivered-by: WorkloadSecret/<name>` (stamped on every write, with either creation
 * policy), or a controller reference to this WorkloadSecret. An object that is not ours is a
 * `TargetConflict` and never modified, unless `adoptExisting` is set and the object has no
 * controller and is not delivered by another resource: then it is taken over (its content replaced).
 *
 * With creationPolicy Owner the target has a controller reference to the WorkloadSecret (garbage
 * collected with it); with Orphan it has none of ours and stays. Other owners' references are kept.
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

/** sha256 over everything Coffer sets on the target (the data through its own hash). */
export function targetHash(spec: TargetSpec, owner: KubeObject): string {
  const fingerprint = {
    data: dataHash(spec.data),
    labels: spec.labels,
    annotations: spec.annotations,
    type: spec.type,
    immutable: spec.immutable,
    owner: spec.policy === 'Owner' ? owner.metadata?.uid : null,
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

/** Ours, adoptable, or someone else's (see the module comment); the string says whose. */
export function ownershipOf(
  obj: TargetObject,
  owner: KubeObject,
  adoptExisting: boolean,
): 'ours' | 'adoptable' | { readonly foreign: string } {
  const by = obj.metadata?.annotations?.[ANNOTATION_DELIVERED_BY];
  if (isManagedByCoffer(obj) && (by === deliveredBy(owner) || isControlledBy(obj, owner))) return 'ours';
  const controller = controllerOf(obj);
  if (controller) return { foreign: `it is controlled by ${controller.kind} ${controller.name}` };
  if (isManagedByCoffer(obj) && by) return { foreign: `${by} delivers into it` };
  if (adoptExisting) return 'adoptable';
  return { foreign: 'it was not created by this WorkloadSecret' };
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
  if (annotations[ANNOTATION_TARGET_HASH] !== targetHash(spec, owner)) return false;
  if (existingDataHash !== dataHash(spec.data)) return false;
  const controller = controllerOf(existing);
  if (spec.policy === 'Owner') return controller?.uid === owner.metadata?.uid;
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

/** The object to create, or to replace `base` with (its resourceVersion and other owners kept). */
export function desiredTarget(spec: TargetSpec, owner: KubeObject, base?: TargetObject): TargetObject {
  const { managedFields: _managedFields, ...metadata } = base?.metadata ?? {};
  // kubectl apply keeps the whole applied object, data included, in this annotation: not ours to keep.
  const { [LAST_APPLIED]: _lastApplied, ...kept } = metadata.annotations ?? {};
  const otherOwners = (metadata.ownerReferences ?? []).filter(
    (ref) => ref.controller !== true && ref.uid !== owner.metadata?.uid,
  );
  const ours = spec.policy === 'Owner' ? [controllerReference(owner)] : [];
  const ownerReferences = [...otherOwners, ...ours];
  return {
    apiVersion: 'v1',
    kind: spec.kind,
    metadata: {
      ...metadata,
      name: spec.name,
      namespace: spec.namespace,
      labels: { ...metadata.labels, ...spec.labels, [LABEL_MANAGED_BY]: MANAGED_BY_VALUE },
      annotations: {
        ...kept,
        ...spec.annotations,
        [ANNOTATION_DATA_HASH]: dataHash(spec.data),
        [ANNOTATION_DELIVERED_BY]: deliveredBy(owner),
        [ANNOTATION_TARGET_HASH]: targetHash(spec, owner),
      },
      ...(ownerReferences.length > 0 ? { ownerReferences } : { ownerReferences: [] }),
    },
    ...(spec.kind === 'Secret' ? { type: spec.type ?? 'Opaque' } : {}),
    ...(spec.immutable ? { immutable: true } : {}),
    data: encoded(spec),
  };
}
