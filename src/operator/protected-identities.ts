/**
 * The identities no resource may change or delete without opting in (ownership.ts, rule 4):
 * every identity a Connection or ClusterConnection authenticates as (`status.id`, recorded when
 * its credentials were verified), and every instance-admin identity a Bootstrap created
 * (`status.identityId`). Read from the informer caches on each use: a handful of objects.
 */
import type { KubeObject } from '../runtime/object-meta.ts';

/** Lists the cached objects of one kind. */
export interface ObjectLister {
  list(): readonly KubeObject[];
}

export interface ProtectedIdentitySources {
  readonly connections: ObjectLister;
  readonly clusterConnections: ObjectLister;
  readonly bootstraps: ObjectLister;
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
export function protectedIdentities(sources: ProtectedIdentitySources): ReadonlyMap<string, string> {
  const found = new Map<string, string>();
  const add = (id: string | undefined, why: string) => {
    if (id && !found.has(id)) found.set(id, `identity ${id} is ${why}`);
  };
  for (const bootstrap of sources.bootstraps.list())
    add(
      statusField(bootstrap, 'identityId'),
      `the instance-admin identity Bootstrap ${nameOf(bootstrap)} created`,
    );
  for (const connection of sources.connections.list())
    add(statusField(connection, 'id'), `the identity Connection ${nameOf(connection)} authenticates as`);
  for (const connection of sources.clusterConnections.list())
    add(
      statusField(connection, 'id'),
      `the identity ClusterConnection ${nameOf(connection)} authenticates as`,
    );
  return found;
}
