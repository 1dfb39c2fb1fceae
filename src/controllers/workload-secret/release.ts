/**
 * Letting go of adopted targets when a WorkloadSecret is deleted (the direct reconciler's
 * `DirectRelease`). A WorkloadSecret with `spec.target.adoptExisting` may adopt, so it carries
 * Coffer's finalizer; when it is deleted, each target it names that it adopted loses Coffer's
 * label and annotations and keeps the content last delivered (the content it had before the
 * take-over is not restored). Adopted targets never carry an owner reference, so the garbage
 * collector never deletes them.
 */
import type { WorkloadSecretSpec } from '../../api/v1alpha1/index.ts';
import type { DirectRelease } from '../../managed/direct/kind.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import type { TargetKind } from './target-objects.ts';
import { releaseAdopted, type targetApis } from './targets.ts';

/** `target.<field>.name`, its default, or undefined when the spec has no such target. */
function targetName(target: unknown, field: 'secret' | 'configMap', fallback: string): string | undefined {
  const entry = (target as Record<string, unknown> | undefined)?.[field];
  if (typeof entry !== 'object' || entry === null) return undefined;
  const name = (entry as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : fallback;
}

/**
 * The targets `obj` names, read from its spec as stored: a spec the schema refuses (an object
 * stored before the CRD changed) still names them.
 */
export function namedTargets(obj: ManagedObject<unknown>): { kind: TargetKind; name: string }[] {
  const target = (obj.spec as { target?: unknown } | undefined)?.target;
  if (typeof target !== 'object' || target === null) return [];
  const secret = targetName(target, 'secret', obj.metadata.name);
  const configMap = targetName(target, 'configMap', obj.metadata.name);
  return [
    ...(secret ? [{ kind: 'Secret' as const, name: secret }] : []),
    ...(configMap ? [{ kind: 'ConfigMap' as const, name: configMap }] : []),
  ];
}

/** The release of a WorkloadSecret's adopted targets (see the module comment). */
export function adoptedTargetsRelease(
  apis: ReturnType<typeof targetApis>,
): DirectRelease<WorkloadSecretSpec> {
  return {
    holds: (obj) => obj.spec.target.adoptExisting,
    async release(obj) {
      await releaseAdopted(apis, obj, namedTargets(obj));
    },
  };
}
