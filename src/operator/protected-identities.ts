/**
 * The identities no resource may change or delete without opting in (ownership.ts, rule 4): the
 * ids the kinds that declare `protectsIdentity` in their registration record in their objects'
 * status (e.g. the identity a connection authenticates as). Read from the informer caches on each
 * use: a handful of objects. When two objects name one identity, the first source's reason stands.
 */
import type { ProtectedIdentityDeclaration } from '../controllers/registration.ts';
import type { KubeObject } from '../runtime/object-meta.ts';

/** Lists the cached objects of one kind. */
export interface ObjectLister {
  list(): readonly KubeObject[];
}

/** The cached objects of one kind and what in their status names a protected identity. */
export interface ProtectedIdentitySource extends ProtectedIdentityDeclaration {
  readonly objects: ObjectLister;
}

function statusField(obj: KubeObject, field: string): string | undefined {
  const value = (obj as { status?: Record<string, unknown> }).status?.[field];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function nameOf(obj: KubeObject): string {
  const { namespace, name } = obj.metadata ?? {};
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** Protected identity ids, each with why it is protected. */
export function protectedIdentities(
  sources: readonly ProtectedIdentitySource[],
): ReadonlyMap<string, string> {
  const found = new Map<string, string>();
  for (const source of sources) {
    for (const obj of source.objects.list()) {
      const id = statusField(obj, source.statusField);
      if (id && !found.has(id)) found.set(id, `identity ${id} is ${source.why(nameOf(obj))}`);
    }
  }
  return found;
}
