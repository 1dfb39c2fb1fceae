/**
 * What a SecretBatch reconcile reads before it writes: the folder (one list call) and the
 * desired keys (Secrets, literals). Observe's read is kept per resource for the create/update of
 * the same reconcile, so the write does not list the folder again; a kept read older than
 * `memoTtlMs` is not used, and each is used at most once.
 */
import type { SecretBatchSpec } from '../../api/v1alpha1/index.ts';
import type { ServiceClient } from '../../client/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { isObserveOnly } from '../../managed/spec.ts';
import type { SecretSource } from '../kind-controller.ts';
import { listFolder } from './folder.ts';
import type { BatchScope } from './mapping.ts';
import type { Snapshot } from './sync.ts';
import { readDesired } from './values.ts';

const memoTtlMs = 10_000;

type Obj = ManagedObject<SecretBatchSpec>;

function memoKey(obj: Obj): string {
  return obj.metadata.uid ?? `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}

/**
 * Whether observe can leave the folder unread: before the first write (no external id yet) of a
 * resource that upserts and may create its folder, the write starts with the folder's creation,
 * whose answer says whether the folder is new and empty or must be listed (`createOrReadFolder`).
 * A SecretBatch into a new folder then costs two service calls: the folder, the batch.
 */
export function folderReadDeferred(obj: Obj, externalId: string | undefined): boolean {
  return (
    externalId === undefined &&
    obj.spec.createFolders === true &&
    obj.spec.mode === 'upsert' &&
    !isObserveOnly(obj.spec)
  );
}

/**
 * Lists the folder of `scope` (unless `deferFolder`: then `current` is undefined, as for a
 * missing folder) and reads the desired keys of `obj` (see the module comment).
 */
export async function readSnapshot(
  secrets: SecretSource,
  client: ServiceClient,
  obj: Obj,
  { scope, signal, deferFolder = false }: { scope: BatchScope; signal: AbortSignal; deferFolder?: boolean },
): Promise<Snapshot> {
  const current = deferFolder ? undefined : await listFolder(client, scope, signal);
  const desired = await readDesired(secrets, obj.metadata.namespace ?? '', obj.spec);
  return { current, desired };
}

/** Observe's reads, kept per resource for the write that follows (see the module comment). */
export class SnapshotMemo {
  private readonly entries = new Map<string, { readonly snapshot: Snapshot; readonly at: number }>();

  /** Keeps `snapshot` as the latest read of `obj`. */
  remember(obj: Obj, snapshot: Snapshot): void {
    this.entries.set(memoKey(obj), { snapshot, at: Date.now() });
  }

  /** The kept read of `obj`, removed; undefined when there is none or it is too old. */
  take(obj: Obj): Snapshot | undefined {
    const key = memoKey(obj);
    const entry = this.entries.get(key);
    this.entries.delete(key);
    return entry && Date.now() - entry.at < memoTtlMs ? entry.snapshot : undefined;
  }
}
