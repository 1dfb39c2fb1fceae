/**
 * SecretBatch adapter: the keys of one folder (`projectId:environment:secretPath`, the external
 * id) that this resource pushes.
 *
 * - observe: reads the desired values (Secrets, literals) and lists the folder ONCE; "exists"
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
import type { Secret, ServiceClient } from '../../client/index.ts';
import type {
  ExternalClient,
  ExternalContext,
  ManagedAdapter,
  ManagedObject,
  Observation,
} from '../../managed/external-client.ts';
import { resolveReference, type ReferencedObject } from '../../managed/references.ts';
import { isObserveOnly } from '../../managed/spec.ts';
import { TerminalError } from '../../runtime/errors.ts';
import { ANNOTATION_EXTERNAL_ID, getAnnotation } from '../../runtime/object-meta.ts';
import type { OperatorServices, ResolvedConnection } from '../kind-controller.ts';
import type { ProjectEventHub } from '../project-events/index.ts';
import { folderNotFound, listFolder } from './folder.ts';
import {
  externalIdOf,
  ownedKeysOf,
  parseExternalId,
  type BatchScope,
  type SecretBatchStatusFields,
} from './mapping.ts';
import { describeChanges, isEmptyPlan, ownedAfter, planBatch } from './plan.ts';
import { planInput, statusFields, syncBatch, WAIT_REQUEUE_MS, type Snapshot } from './sync.ts';
import { readDesired } from './values.ts';
import { secretBatchReasons } from './reasons.ts';

/** What references resolve to: the service project id. */
export interface SecretBatchRefs {
  readonly projectId: string;
}

type Client = ExternalClient<SecretBatchSpec, SecretBatchRefs, SecretBatchStatusFields>;

/** What observe read, for the create/update that follows in the same reconcile. */
interface Memo extends Snapshot {
  readonly at: number;
}
const memoTtlMs = 10_000;

interface Deps {
  readonly services: OperatorServices;
  readonly hub: ProjectEventHub | undefined;
  readonly memo: Map<string, Memo>;
}

function scopeOf(obj: ManagedObject<SecretBatchSpec>, projectId: string): BatchScope {
  return { projectId, environment: obj.spec.environment, secretPath: obj.spec.secretPath };
}

function memoKey(obj: ManagedObject<SecretBatchSpec>): string {
  return obj.metadata.uid ?? `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}

function checkId(ctx: ExternalContext<SecretBatchRefs>, id: string): void {
  if (ctx.externalId === undefined || ctx.externalId === id) return;
  throw new TerminalError(
    secretBatchReasons.names.ExternalIdMismatch,
    `the ${ANNOTATION_EXTERNAL_ID} annotation ${ctx.externalId} does not name this resource's folder ${id} ` +
      '(<projectId>:<environment>:<secretPath>); correct or remove it',
  );
}

async function snapshot(
  deps: Deps,
  client: ServiceClient,
  obj: ManagedObject<SecretBatchSpec>,
  ctx: ExternalContext<SecretBatchRefs>,
): Promise<Snapshot> {
  const scope = scopeOf(obj, ctx.references.projectId);
  const current = await listFolder(client, scope, ctx.signal);
  const desired = await readDesired(deps.services.secrets, obj.metadata.namespace ?? '', obj.spec);
  return { current, desired };
}

/** The snapshot observe left for this write, or a fresh one. */
async function takeSnapshot(
  deps: Deps,
  client: ServiceClient,
  obj: ManagedObject<SecretBatchSpec>,
  ctx: ExternalContext<SecretBatchRefs>,
): Promise<Snapshot> {
  const key = memoKey(obj);
  const memo = deps.memo.get(key);
  deps.memo.delete(key);
  if (memo && Date.now() - memo.at < memoTtlMs) return memo;
  return snapshot(deps, client, obj, ctx);
}

function register(
  deps: Deps,
  connection: ResolvedConnection,
  obj: ManagedObject<SecretBatchSpec>,
  seen: Snapshot & { scope: BatchScope },
): void {
  const owned = ownedKeysOf(obj.status).map((o) => o.key);
  const keys = [...seen.desired.flatMap((d) => [d.key, ...(d.previousKey ? [d.previousKey] : [])]), ...owned];
  deps.hub?.register(obj, { connection, ...seen.scope, keys });
}

function observation(
  deps: Deps,
  connection: ResolvedConnection,
  obj: ManagedObject<SecretBatchSpec>,
  seen: Snapshot & { scope: BatchScope; id: string },
): Observation<SecretBatchStatusFields> {
  const events = deps.hub?.stateOf(connection.key, seen.scope.projectId);
  const extra = events ? { events } : {};
  const input = planInput(obj, seen.desired, seen.current ?? new Map<string, Secret>());
  const status = statusFields(obj, ownedAfter(input, []), extra);
  if (!seen.current) {
    return {
      exists: true,
      upToDate: false,
      externalId: seen.id,
      status,
      diff: `folder ${seen.scope.secretPath} is missing`,
    };
  }
  const plan = planBatch(input);
  const diff = describeChanges(plan.changes);
  return {
    exists: true,
    upToDate: isEmptyPlan(plan),
    externalId: seen.id,
    status,
    ...(diff ? { diff } : {}),
  };
}

function batchClient(deps: Deps, connection: ResolvedConnection): Client {
  const { client } = connection;
  const write = async (obj: ManagedObject<SecretBatchSpec>, ctx: ExternalContext<SecretBatchRefs>) => {
    const scope = scopeOf(obj, ctx.references.projectId);
    const seen = await takeSnapshot(deps, client, obj, ctx);
    const events = deps.hub?.stateOf(connection.key, scope.projectId);
    const hub = deps.hub;
    const notice = hub && {
      expect: (keys: readonly string[]) => hub.expectOwnWrite(obj, keys),
      forget: () => hub.forgetOwnWrite(obj),
    };
    const extra = events ? { events } : {};
    const context = { signal: ctx.signal, now: deps.services.now(), extra, notice };
    return { id: externalIdOf(scope), status: await syncBatch({ client, obj, scope }, seen, context) };
  };
  return {
    async observe(obj, ctx) {
      const scope = scopeOf(obj, ctx.references.projectId);
      const id = externalIdOf(scope);
      checkId(ctx, id);
      const seen = { ...(await snapshot(deps, client, obj, ctx)), scope, id };
      register(deps, connection, obj, seen);
      if (!seen.current && !obj.spec.createFolders && !isObserveOnly(obj.spec))
        throw folderNotFound(scope, WAIT_REQUEUE_MS);
      const result =
        ctx.externalId === undefined
          ? ({ exists: false } as const)
          : observation(deps, connection, obj, seen);
      if ((!result.exists || !result.upToDate) && !isObserveOnly(obj.spec))
        deps.memo.set(memoKey(obj), { ...seen, at: Date.now() });
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

/** The Project id: from the Project resource, or (while deleting) from the recorded external id. */
async function resolveProject(
  services: OperatorServices,
  obj: ManagedObject<SecretBatchSpec>,
  context: Parameters<NonNullable<ManagedAdapter<SecretBatchSpec, SecretBatchRefs>['resolveReferences']>>[1],
): Promise<SecretBatchRefs> {
  const recorded = parseExternalId(getAnnotation(obj, ANNOTATION_EXTERNAL_ID) ?? '')?.projectId;
  const resolved = await resolveReference({
    reader: services.reader<ReferencedObject>('Project'),
    kind: 'Project',
    from: obj,
    ref: obj.spec.projectRef,
    context,
    ...(recorded ? { fallbackId: recorded } : {}),
  });
  return { projectId: resolved.externalId };
}

/** The SecretBatch adapter; `hub` receives the resources for instant updates (optional). */
export function secretBatchAdapter(
  services: OperatorServices,
  hub?: ProjectEventHub,
): ManagedAdapter<SecretBatchSpec, SecretBatchRefs, SecretBatchStatusFields> {
  const deps: Deps = { services, hub, memo: new Map() };
  return {
    resolveReferences: (obj, context) => resolveProject(services, obj, context),
    async connect(obj) {
      return batchClient(deps, await services.connectionFor(obj));
    },
  };
}
