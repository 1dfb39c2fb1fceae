/**
 * SecretBatch adapter: the keys of one folder (`projectId:environment:secretPath`, the external
 * id) that this resource pushes.
 *
 * - observe: reads the desired values (Secrets, literals) and lists the folder ONCE (not at all
 *   before the first write when that write creates the folder, see `folderReadDeferred`); "exists"
 *   once an external id is recorded; up to date when no key differs (after normalisation);
 *   registers the resource with the project event hub (instant updates);
 * - create / update: `syncBatch` (folders, one batch update, one batch delete), reusing what
 *   observe just read instead of listing again, and announcing the keys to the hub first so the
 *   write's own echo on the event stream does not wake the batch to read its folder again;
 * - delete: one list, then one batch delete of the owned keys that still exist;
 * - findByNaturalKey: the external id is the natural key, so it is always the one match;
 * - idBeforeCreate: that id, so it is recorded with the finalizer before the first write (writing
 *   the keys again is harmless), instead of a create-pending mark and the id afterwards.
 */
import type { SecretBatchSpec } from '../../api/v1alpha1/index.ts';
import type {
  ExternalClient,
  ExternalContext,
  ManagedAdapter,
  ManagedObject,
} from '../../managed/external-client.ts';
import { isObserveOnly } from '../../managed/spec.ts';
import { TerminalError } from '../../runtime/errors.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../runtime/object-meta.ts';
import type { OperatorServices, ResolvedConnection } from '../kind-controller.ts';
import type { ProjectEventHub } from '../project-events/index.ts';
import { hubStatus, ownWriteNotice, registerInterest } from './event-hub-link.ts';
import { folderNotFound, listFolder } from './folder.ts';
import { externalIdOf, ownedKeysOf, parseExternalId, type SecretBatchStatusFields } from './mapping.ts';
import { observationOf } from './observation.ts';
import { secretBatchReasons } from './reasons.ts';
import { resolveSecretBatchRefs, scopeOf, type SecretBatchRefs } from './references.ts';
import { folderReadDeferred, readSnapshot, SnapshotMemo } from './snapshot.ts';
import { syncBatch, WAIT_REQUEUE_MS } from './sync.ts';

type Client = ExternalClient<SecretBatchSpec, SecretBatchRefs, SecretBatchStatusFields>;
type Obj = ManagedObject<SecretBatchSpec>;
type Context = ExternalContext<SecretBatchRefs>;

interface Deps {
  readonly services: OperatorServices;
  readonly hub: ProjectEventHub | undefined;
  readonly memo: SnapshotMemo;
}

function checkId(ctx: Context, id: string): void {
  if (ctx.externalId === undefined || ctx.externalId === id) return;
  throw new TerminalError(
    secretBatchReasons.names.ExternalIdMismatch,
    `the ${ANNOTATION_EXTERNAL_ID} annotation ${ctx.externalId} does not name this resource's folder ${id} ` +
      '(<projectId>:<environment>:<secretPath>); correct or remove it',
  );
}

function batchClient(deps: Deps, connection: ResolvedConnection): Client {
  const { client } = connection;
  const read = (obj: Obj, ctx: Context, deferFolder = false) =>
    readSnapshot(deps.services.secrets, client, obj, {
      scope: scopeOf(obj, ctx.references.projectId),
      signal: ctx.signal,
      deferFolder,
    });
  const write = async (obj: Obj, ctx: Context) => {
    const scope = scopeOf(obj, ctx.references.projectId);
    const seen = deps.memo.take(obj) ?? (await read(obj, ctx));
    const extra = hubStatus(deps.hub, connection, scope.projectId);
    const notice = ownWriteNotice(deps.hub, obj);
    const context = { signal: ctx.signal, now: deps.services.now(), extra, notice };
    return { id: externalIdOf(scope), status: await syncBatch({ client, obj, scope }, seen, context) };
  };
  return {
    async observe(obj, ctx) {
      const scope = scopeOf(obj, ctx.references.projectId);
      const id = externalIdOf(scope);
      checkId(ctx, id);
      const deferred = folderReadDeferred(obj, ctx.externalId);
      const seen = { ...(await read(obj, ctx, deferred)), scope, id };
      registerInterest(deps.hub, connection, obj, seen);
      if (!seen.current && !obj.spec.createFolders && !isObserveOnly(obj.spec))
        throw folderNotFound(scope, WAIT_REQUEUE_MS);
      const result =
        ctx.externalId === undefined
          ? ({ exists: false } as const)
          : observationOf(obj, seen, hubStatus(deps.hub, connection, scope.projectId));
      if ((!result.exists || !result.upToDate) && !isObserveOnly(obj.spec)) deps.memo.remember(obj, seen);
      return result;
    },
    async create(obj, ctx) {
      const { id, status } = await write(obj, ctx);
      return { externalId: id, status };
    },
    async update(obj, ctx) {
      return { status: (await write(obj, ctx)).status };
    },
    async delete(obj, ctx) {
      deps.hub?.unregister(obj);
      const scope = parseExternalId(ctx.externalId) ?? scopeOf(obj, ctx.references.projectId);
      const owned = ownedKeysOf(obj.status).map((o) => o.key);
      if (owned.length === 0) return;
      const current = await listFolder(client, scope, ctx.signal);
      const existing = owned.filter((key) => current?.has(key));
      if (existing.length === 0) return;
      const where = {
        workspaceId: scope.projectId,
        environment: scope.environment,
        secretPath: scope.secretPath,
      };
      const secrets = existing.map((secretKey) => ({ secretKey }));
      await client.secrets.batchDelete({ ...where, secrets }, { signal: ctx.signal });
    },
    findByNaturalKey(obj, ctx) {
      return Promise.resolve([{ id: externalIdOf(scopeOf(obj, ctx.references.projectId)) }]);
    },
    idBeforeCreate(obj, ctx) {
      return externalIdOf(scopeOf(obj, ctx.references.projectId));
    },
  };
}

/** The SecretBatch adapter; `hub` receives the resources for instant updates (optional). */
export function secretBatchAdapter(
  services: OperatorServices,
  hub?: ProjectEventHub,
): ManagedAdapter<SecretBatchSpec, SecretBatchRefs, SecretBatchStatusFields> {
  const deps: Deps = { services, hub, memo: new SnapshotMemo() };
  return {
    resolveReferences: (obj, context) => resolveSecretBatchRefs(services, obj, context),
    async connect(obj) {
      return batchClient(deps, await services.connectionFor(obj));
    },
  };
}
