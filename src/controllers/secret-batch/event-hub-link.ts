/**
 * A SecretBatch's side of the project event hub (`../project-events`): registering the keys it
 * pushes or owns (its folder's changes to them wake it), the hub's stream state for status, and
 * the notice of its own writes (so their echo does not wake it). All of it is a no-op without a
 * hub.
 */
import type { SecretBatchSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import type { ResolvedConnection } from '../kind-controller.ts';
import type { ProjectEventHub } from '../project-events/index.ts';
import { ownedKeysOf, type BatchScope, type SecretBatchStatusFields } from './mapping.ts';
import type { OwnWriteNotice, Snapshot } from './sync.ts';

type Obj = ManagedObject<SecretBatchSpec>;

/** Registers `obj` for the desired keys (and the keys they are renamed from) and the owned ones. */
export function registerInterest(
  hub: ProjectEventHub | undefined,
  connection: ResolvedConnection,
  obj: Obj,
  seen: Snapshot & { readonly scope: BatchScope },
): void {
  const owned = ownedKeysOf(obj.status).map((o) => o.key);
  const keys = [...seen.desired.flatMap((d) => [d.key, ...(d.previousKey ? [d.previousKey] : [])]), ...owned];
  hub?.register(obj, { connection, ...seen.scope, keys });
}

/** The status fields the hub contributes: the state of the project's event stream, if any. */
export function hubStatus(
  hub: ProjectEventHub | undefined,
  connection: ResolvedConnection,
  projectId: string,
): Partial<SecretBatchStatusFields> {
  const events = hub?.stateOf(connection.key, projectId);
  return events ? { events } : {};
}

/** The notice `syncBatch` gives the hub of `obj`'s writes; undefined without a hub. */
export function ownWriteNotice(hub: ProjectEventHub | undefined, obj: Obj): OwnWriteNotice | undefined {
  return (
    hub && {
      expect: (keys: readonly string[]) => hub.expectOwnWrite(obj, keys),
      forget: () => hub.forgetOwnWrite(obj),
    }
  );
}
