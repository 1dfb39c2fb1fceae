/**
 * The cases every managed kind shares, written once against a kind's {@link KindConformance}:
 * each makes its own resource (named after the case) in the kind's namespace and asserts what the
 * managed reconciler promises for every kind.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { findKind } from '../../../src/api/v1alpha1/index.ts';
import { ANNOTATION_ABANDON, ANNOTATION_EXTERNAL_ID } from '../../../src/runtime/object-meta.ts';
import { waitFor } from '../kube.ts';
import type { CofferObject } from '../operator.ts';
import { createConnection, createDependency, isClusterScoped } from './setup.ts';
import type { ConformanceCase, ConformanceContext, KindConformance } from './types.ts';

const FINALIZER = 'coffer.dev/finalizer';

/** One kind's resource `name` in its namespace. */
class Resource {
  readonly ctx: ConformanceContext;
  readonly k: KindConformance;
  readonly name: string;

  constructor(ctx: ConformanceContext, k: KindConformance, name: string) {
    this.ctx = ctx;
    this.k = k;
    this.name = name;
  }

  private get at() {
    return { namespace: this.ctx.namespace };
  }

  private owned: Promise<void> | undefined;

  /** Creates the resource's own dependencies (once). */
  own(): Promise<void> {
    this.owned ??= (async () => {
      for (const dependency of this.k.own?.(this.ctx, this.name) ?? [])
        await createDependency(this.ctx, dependency);
    })();
    return this.owned;
  }

  /** Makes the service object outside Coffer (after the resource's own dependencies); its id. */
  async external(): Promise<string> {
    await this.own();
    return this.k.createExternal(this.ctx, this.name);
  }

  /** Creates the resource's own dependencies, then the resource (spec extras and annotations optional). */
  async create(extra: Record<string, unknown> = {}, annotations?: Record<string, string>): Promise<void> {
    await this.own();
    const spec = { ...this.k.spec(this.ctx, this.name), connectionRef: this.ctx.connectionRef, ...extra };
    await this.ctx.h.create(this.k.kind, this.name, spec, {
      ...this.at,
      ...(annotations ? { annotations } : {}),
    });
  }

  /**
   * A Ready resource managing a service object: created from the spec or, for a kind whose
   * objects are made outside Coffer, adopting one. Resolves with the object as read back.
   */
  async ready(extra: Record<string, unknown> = {}): Promise<CofferObject> {
    if (this.k.createdOutside) await this.create(extra, { [ANNOTATION_EXTERNAL_ID]: await this.external() });
    else await this.create(extra);
    return this.ctx.h.waitForReady(this.k.kind, this.name, this.at);
  }

  /** The service object, or undefined once the service answers 404. */
  async service(id: string): Promise<Record<string, unknown> | undefined> {
    try {
      return await this.k.read(this.ctx, this.name, id);
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  }

  /** Waits until the service object satisfies `check`. */
  serviceMatches(id: string, check: (object: Record<string, unknown>) => boolean, what: string) {
    return waitFor(
      async () => {
        const object = await this.service(id);
        return object && check(object) ? object : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, message: `${this.k.kind} ${this.name}: ${what}` },
    );
  }

  async deleteAndWait(): Promise<void> {
    await this.ctx.h.delete(this.k.kind, this.name, this.at);
    await this.ctx.h.waitForDeletion(this.k.kind, this.name, this.at);
  }

  /** Waits for an event about the resource with `reason`; returns it. */
  event(reason: string): Promise<CoreV1Event> {
    const namespace = isClusterScoped(this.k.kind) ? 'default' : this.ctx.namespace;
    return this.ctx.h.waitForEvent(this.name, (e) => e.reason === reason, { namespace });
  }

  async reasons(): Promise<string[]> {
    const namespace = isClusterScoped(this.k.kind) ? 'default' : this.ctx.namespace;
    return (await this.ctx.h.events(this.name, { namespace })).map((e) => e.reason ?? '');
  }
}

function message(obj: CofferObject, type: string): string {
  return obj.status?.conditions?.find((c) => c.type === type)?.message ?? '';
}

type Case = (r: Resource) => Promise<void>;

/** Creates the service object, records its id in status and the annotation, holds the finalizer. */
const create: Case = async (r) => {
  const ready = await r.ready();
  const id = ready.status?.id ?? '';
  expect(id).not.toBe('');
  expect(ready.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBe(id);
  expect(ready.metadata.finalizers).toContain(FINALIZER);
  expect(r.k.inLine((await r.service(id)) ?? {})).toBe(true);
  expect((await r.event('CreatedExternal')).message).toContain(id);
};

/** Applies a spec change to the service object. */
const update: Case = async (r) => {
  const id = (await r.ready()).status?.id ?? '';
  expect(r.k.update.applied((await r.service(id)) ?? {})).toBe(false);
  await r.ctx.h.patch(r.k.kind, r.name, { spec: r.k.update.spec }, { namespace: r.ctx.namespace });
  const updated = await r.serviceMatches(id, r.k.update.applied, 'the spec change in the service');
  expect(r.k.update.applied(updated)).toBe(true);
  expect((await r.event('UpdatedExternal')).message).toContain(id);
};

/** Restores a service object changed behind Coffer's back (on the next poll or a project event). */
const drift: Case = async (r) => {
  const id = (await r.ready({ pollInterval: '10s' })).status?.id ?? '';
  await r.k.drift(r.ctx, r.name, id);
  // Not read back: a kind fed by the project's event stream may restore it before a read. The
  // UpdatedExternal event below proves the operator found it out of line and wrote it back.
  const restored = await r.serviceMatches(id, r.k.inLine, 'restored by the poll');
  expect(r.k.inLine(restored)).toBe(true);
  expect((await r.event('UpdatedExternal')).message).toContain(id);
};

/** Observes an object named by id without writing to it, and leaves it on deletion. */
const observeOnly: Case = async (r) => {
  const existing = await r.external();
  await r.create(
    { managementPolicy: 'ObserveOnly', deletionPolicy: 'Delete' },
    {
      [ANNOTATION_EXTERNAL_ID]: existing,
    },
  );
  const ready = await r.ctx.h.waitForReady(r.k.kind, r.name, { namespace: r.ctx.namespace });
  expect(ready.status?.id).toBe(existing);
  expect(message(ready, 'Synced')).toContain('ObserveOnly');
  expect(r.k.inLine((await r.service(existing)) ?? {})).toBe(false);
  await r.deleteAndWait();
  expect(await r.service(existing)).toBeDefined();
};

/** Adopts an object named by the external-id annotation and brings it in line. */
const adoption: Case = async (r) => {
  const existing = await r.external();
  expect(r.k.inLine((await r.service(existing)) ?? {})).toBe(false);
  await r.create({}, { [ANNOTATION_EXTERNAL_ID]: existing });
  const ready = await r.ctx.h.waitForReady(r.k.kind, r.name, { namespace: r.ctx.namespace });
  expect(ready.status?.id).toBe(existing);
  expect(r.k.inLine(await r.serviceMatches(existing, r.k.inLine, 'brought in line'))).toBe(true);
  expect((await r.event('AdoptedExternal')).message).toContain(existing);
  expect(await r.reasons()).not.toContain('CreatedExternal');
};

/** Refuses an object found by natural key (never takes it over), and deletion leaves it. */
const alreadyExists: Case = async (r) => {
  const existing = await r.external();
  await r.create({ deletionPolicy: 'Delete' });
  const refused = await r.ctx.h.waitForCondition(
    r.k.kind,
    r.name,
    { type: 'Synced', status: 'False', reason: 'AlreadyExists' },
    { namespace: r.ctx.namespace },
  );
  expect(message(refused, 'Synced')).toContain(`${ANNOTATION_EXTERNAL_ID}: "${existing}"`);
  expect(refused.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBeUndefined();
  expect(await r.reasons()).not.toContain('AdoptedExternal');
  await r.deleteAndWait();
  expect(r.k.inLine((await r.service(existing)) ?? {})).toBe(false);
  expect(await r.service(existing)).toBeDefined();
};

/** `{ deletionPolicy }`, or nothing when `policy` is the kind's default (so the default is tested). */
function deletionPolicy(kind: string, policy: 'Orphan' | 'Delete'): Record<string, unknown> {
  return findKind(kind)?.defaultDeletionPolicy === policy ? {} : { deletionPolicy: policy };
}

/** deletionPolicy Orphan (set, or the kind's default): the resource goes, the service object stays. */
const orphan: Case = async (r) => {
  const id = (await r.ready(deletionPolicy(r.k.kind, 'Orphan'))).status?.id ?? '';
  await r.deleteAndWait();
  expect(await r.service(id)).toBeDefined();
  expect((await r.event('OrphanedExternal')).message).toContain(id);
};

/** deletionPolicy Delete (set, or the kind's default): the service object goes with the resource. */
const deleteCase: Case = async (r) => {
  const id = (await r.ready(deletionPolicy(r.k.kind, 'Delete'))).status?.id ?? '';
  await r.deleteAndWait();
  expect(await r.service(id)).toBeUndefined();
  expect((await r.event('DeletedExternal')).message).toContain(id);
};

/** The abandon annotation: the finalizer goes, the service object stays, whatever the policy. */
const abandon: Case = async (r) => {
  const id = (await r.ready({ deletionPolicy: 'Delete' })).status?.id ?? '';
  const annotations = { [ANNOTATION_ABANDON]: 'true' };
  await r.ctx.h.patch(r.k.kind, r.name, { metadata: { annotations } }, { namespace: r.ctx.namespace });
  await r.deleteAndWait();
  expect(await r.service(id)).toBeDefined();
  expect((await r.event('AbandonedExternal')).message).toContain(id);
};

/** A connection that does not exist: the resource waits, says which, and deletion is not held up. */
const missingConnection: Case = async (r) => {
  await r.create({ connectionRef: { name: 'no-such-connection' } });
  const waiting = await r.ctx.h.waitForCondition(
    r.k.kind,
    r.name,
    { type: 'Synced', status: 'False', reason: 'ReferenceNotReady' },
    { namespace: r.ctx.namespace },
  );
  expect(message(waiting, 'Synced')).toContain('no-such-connection');
  // The finalizer comes only before the resource owns something in the service: none yet.
  expect(waiting.metadata.finalizers ?? []).not.toContain(FINALIZER);
  await r.deleteAndWait();
  expect(await r.ctx.h.get(r.k.kind, r.name, { namespace: r.ctx.namespace })).toBeUndefined();
};

/** Deletes a connection that resources still use: it waits for them, so an admin abandons it. */
async function abandonConnection(r: Resource, kind: string, name: string): Promise<void> {
  const at = { namespace: r.ctx.namespace };
  await r.ctx.h.delete(kind, name, at);
  await r.ctx.h.waitForCondition(
    kind,
    name,
    { type: 'Ready', status: 'False', reason: 'DeletionWaiting' },
    at,
  );
  await r.ctx.h.patch(kind, name, { metadata: { annotations: { [ANNOTATION_ABANDON]: 'true' } } }, at);
  await r.ctx.h.waitForDeletion(kind, name, at);
}

/**
 * The connection of a resource that owns a service object went away: deletion keeps the finalizer
 * and says which connection it waits for; the abandon annotation lets it go, leaving the object.
 */
const connectionGone: Case = async (r) => {
  const connectionKind = isClusterScoped(r.k.kind) ? 'ClusterConnection' : 'Connection';
  const connection = isClusterScoped(r.k.kind) ? r.ctx.unique('gone') : 'gone';
  await createConnection(r.ctx.h, { kind: r.k.kind, namespace: r.ctx.namespace }, connection);
  const id =
    (await r.ready({ deletionPolicy: 'Delete', connectionRef: { name: connection } })).status?.id ?? '';
  await abandonConnection(r, connectionKind, connection);
  await r.ctx.h.delete(r.k.kind, r.name, { namespace: r.ctx.namespace });
  const waiting = await r.ctx.h.waitForCondition(
    r.k.kind,
    r.name,
    { type: 'Synced', status: 'False', reason: 'ReferenceNotReady' },
    { namespace: r.ctx.namespace },
  );
  expect(waiting.metadata.finalizers).toContain(FINALIZER);
  expect(message(waiting, 'Synced')).toContain(`${connectionKind} ${connection}`);
  await r.ctx.h.patch(
    r.k.kind,
    r.name,
    { metadata: { annotations: { [ANNOTATION_ABANDON]: 'true' } } },
    {
      namespace: r.ctx.namespace,
    },
  );
  await r.ctx.h.waitForDeletion(r.k.kind, r.name, { namespace: r.ctx.namespace });
  expect(await r.service(id)).toBeDefined();
};

const cases: Record<ConformanceCase, Case> = {
  create,
  update,
  drift,
  'observe-only': observeOnly,
  adoption,
  'already-exists': alreadyExists,
  orphan,
  delete: deleteCase,
  abandon,
  'missing-connection': missingConnection,
  'connection-gone': connectionGone,
};

/** The resource a case makes: named after the case (made unique for a cluster-scoped kind). */
export function resourceName(ctx: ConformanceContext, k: KindConformance, name: ConformanceCase): string {
  return isClusterScoped(k.kind) ? ctx.unique(name) : name;
}

/** Runs `name` for the kind, with its resource named by {@link resourceName}. */
export function runCase(ctx: ConformanceContext, k: KindConformance, name: ConformanceCase): Promise<void> {
  return cases[name](new Resource(ctx, k, resourceName(ctx, k, name)));
}
