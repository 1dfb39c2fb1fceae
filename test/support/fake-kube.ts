// In-memory stand-ins for the Kubernetes API pieces the managed reconciler uses, with the
// semantics that matter to it: resourceVersion optimistic concurrency (409), generation bumps on
// spec changes, finalizers holding a deleted object, JSON and merge patches, the status
// subresource, Secrets and Events. For unit tests only; integration tests use the real API server.
import type { CoreV1Event, V1Secret } from '@kubernetes/client-node';
import type { EventsApi } from '../../src/runtime/events.ts';
import type {
  JsonPatchOperation,
  KubeObject,
  ObjectPatcher,
  ObjectRef,
} from '../../src/runtime/object-meta.ts';
import type { SecretsApi } from '../../src/runtime/secret-writer.ts';
import type { ObjectReader } from '../../src/managed/kube-objects.ts';
import type { Request } from '../../src/runtime/reconcile.ts';

/** An error shaped like client-node's ApiException. */
export function kubeError(code: number, message: string): Error & { code: number; body: string } {
  return Object.assign(new Error(`HTTP ${code}: ${message}`), { code, body: JSON.stringify({ message }) });
}

type Doc = Record<string, unknown>;

function isObject(value: unknown): value is Doc {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7386. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Doc = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

function unescape(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

function applyOne(container: Doc, last: string, operation: JsonPatchOperation): void {
  const list = Array.isArray(container) ? (container as unknown[]) : undefined;
  if (operation.op === 'test') {
    if (JSON.stringify(container[last]) !== JSON.stringify(operation.value))
      throw kubeError(422, 'test failed');
    return;
  }
  if (operation.op === 'remove') {
    if (!(last in container)) throw kubeError(422, `cannot remove ${operation.path}`);
    if (list) list.splice(Number(last), 1);
    else delete container[last];
    return;
  }
  if (list) {
    const index = last === '-' ? list.length : Number(last);
    list.splice(index, operation.op === 'replace' ? 1 : 0, structuredClone(operation.value));
    return;
  }
  if (operation.op === 'replace' && !(last in container))
    throw kubeError(422, `cannot replace ${operation.path}`);
  container[last] = structuredClone(operation.value);
}

/** RFC 6902 (add, replace, remove, test) on plain JSON documents. */
export function applyJsonPatch(doc: Doc, operations: readonly JsonPatchOperation[]): Doc {
  const result = structuredClone(doc);
  for (const operation of operations) {
    const segments = operation.path.split('/').slice(1).map(unescape);
    const last = segments.pop();
    let parent: unknown = result;
    for (const segment of segments) parent = (parent as Doc)[segment];
    if (last === undefined || typeof parent !== 'object' || parent === null) {
      throw kubeError(422, `bad path ${operation.path}`);
    }
    applyOne(parent as Doc, last, operation);
  }
  return result;
}

interface Meta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  finalizers?: string[];
  deletionTimestamp?: string;
  annotations?: Record<string, string>;
}

let globalVersion = 1;
let uidCounter = 1;

/** A store of one kind of object implementing ObjectReader and ObjectPatcher. */
export class FakeObjectStore<T extends KubeObject> implements ObjectReader<T>, ObjectPatcher<T> {
  private readonly objects = new Map<string, Doc>();
  private readonly history = new Map<string, Doc[]>();
  private staleReads = 0;
  private readonly pinned = new Map<string, T>();
  /** Every write: `jsonPatch`, `mergePatch`, `status`. */
  readonly writes: string[] = [];

  private key(ref: ObjectRef): string {
    return `${ref.namespace ?? ''}/${ref.name}`;
  }

  private store(key: string, doc: Doc): void {
    const meta = doc.metadata as Meta;
    meta.resourceVersion = String(++globalVersion);
    this.history.set(key, [...(this.history.get(key) ?? []), structuredClone(doc)]);
    if (meta.deletionTimestamp && (meta.finalizers ?? []).length === 0) this.objects.delete(key);
    else this.objects.set(key, doc);
  }

  /** Creates an object (uid, resourceVersion, generation 1). */
  create(obj: T): T {
    const doc = structuredClone(obj) as unknown as Doc;
    const meta = doc.metadata as Meta;
    meta.uid = `uid-${uidCounter++}`;
    meta.generation = 1;
    this.store(this.key(meta), doc);
    return this.peek(meta)!;
  }

  /** The stored object (a copy), without stale-read simulation. */
  peek(ref: ObjectRef): T | undefined {
    const doc = this.objects.get(this.key(ref));
    return doc ? (structuredClone(doc) as unknown as T) : undefined;
  }

  /** The next `count` reads return the version before the latest write (a lagging cache). */
  serveStale(count = 1): void {
    this.staleReads = count;
  }

  /** The next read of `ref` returns the newest past version matching `match` (a lagging cache). */
  serveOldVersion(ref: ObjectRef, match: (obj: T) => boolean): void {
    const versions = (this.history.get(this.key(ref)) ?? []) as unknown as T[];
    const found = versions.findLast(match);
    if (!found) throw new Error('no such past version');
    this.pinned.set(this.key(ref), found);
  }

  get(request: Request): Promise<T | undefined> {
    const key = this.key(request);
    const pinned = this.pinned.get(key);
    if (pinned) {
      this.pinned.delete(key);
      return Promise.resolve(structuredClone(pinned));
    }
    if (this.staleReads > 0) {
      this.staleReads--;
      const versions = this.history.get(key) ?? [];
      const previous = versions[versions.length - 2];
      if (previous) return Promise.resolve(structuredClone(previous) as unknown as T);
    }
    return Promise.resolve(this.peek(request));
  }

  /** Edits like `kubectl edit`: bumps generation when the spec changed. */
  edit(ref: ObjectRef, change: (obj: T) => void): T {
    const current = this.objects.get(this.key(ref));
    if (!current) throw kubeError(404, 'not found');
    const next = structuredClone(current);
    change(next as unknown as T);
    if (JSON.stringify(next.spec) !== JSON.stringify(current.spec)) (next.metadata as Meta).generation! += 1;
    this.store(this.key(ref), next);
    return this.peek(ref)!;
  }

  /** Deletes like the API server: with finalizers the object stays, with a deletionTimestamp. */
  delete(ref: ObjectRef): void {
    const key = this.key(ref);
    const current = this.objects.get(key);
    if (!current) throw kubeError(404, 'not found');
    const meta = current.metadata as Meta;
    if ((meta.finalizers ?? []).length === 0) this.objects.delete(key);
    else if (!meta.deletionTimestamp) {
      meta.deletionTimestamp = new Date().toISOString();
      this.store(key, current);
    }
  }

  private write(ref: ObjectRef, kind: string, apply: (doc: Doc) => Doc): Promise<T> {
    this.writes.push(kind);
    const key = this.key(ref);
    const current = this.objects.get(key);
    if (!current) return Promise.reject(kubeError(404, 'not found'));
    const next = apply(current);
    const meta = next.metadata as Meta;
    if (meta.resourceVersion !== (current.metadata as Meta).resourceVersion) {
      return Promise.reject(kubeError(409, 'the object has been modified'));
    }
    if (JSON.stringify(next.spec) !== JSON.stringify(current.spec))
      meta.generation = (meta.generation ?? 0) + 1;
    this.store(key, next);
    return Promise.resolve(structuredClone(next) as unknown as T);
  }

  jsonPatch(ref: ObjectRef, operations: readonly JsonPatchOperation[]): Promise<T> {
    try {
      return this.write(ref, 'jsonPatch', (doc) => {
        const next = applyJsonPatch(doc, operations);
        return { ...next, status: doc.status };
      });
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  mergePatch(ref: ObjectRef, patch: object): Promise<T> {
    return this.write(ref, 'mergePatch', (doc) => {
      const next = applyMergePatch(doc, { ...patch, status: undefined }) as Doc;
      const wanted = (patch as { metadata?: Meta }).metadata?.resourceVersion;
      (next.metadata as Meta).resourceVersion = wanted ?? (doc.metadata as Meta).resourceVersion;
      return { ...next, status: doc.status };
    });
  }

  /** Like the API server: only status changes; a `metadata.resourceVersion` in the patch guards it. */
  mergePatchStatus(ref: ObjectRef, patch: object): Promise<T> {
    return this.write(ref, 'status', (doc) => {
      const status = applyMergePatch(doc.status, (patch as { status?: unknown }).status);
      const next: Doc = { ...structuredClone(doc), status };
      const wanted = (patch as { metadata?: Meta }).metadata?.resourceVersion;
      if (wanted !== undefined) (next.metadata as Meta).resourceVersion = wanted;
      return next;
    });
  }
}

/** In-memory Secrets with resourceVersion checks. */
export class FakeSecrets implements SecretsApi {
  readonly secrets = new Map<string, V1Secret>();
  readonly writes: string[] = [];

  private key(namespace: string, name: string): string {
    return `${namespace}/${name}`;
  }

  readNamespacedSecret(param: { namespace: string; name: string }): Promise<V1Secret> {
    const secret = this.secrets.get(this.key(param.namespace, param.name));
    return secret ? Promise.resolve(structuredClone(secret)) : Promise.reject(kubeError(404, 'not found'));
  }

  createNamespacedSecret(param: { namespace: string; body: V1Secret }): Promise<V1Secret> {
    const key = this.key(param.namespace, param.body.metadata?.name ?? '');
    if (this.secrets.has(key)) return Promise.reject(kubeError(409, 'already exists'));
    this.writes.push(`create ${key}`);
    const stored = structuredClone(param.body);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++globalVersion) };
    this.secrets.set(key, stored);
    return Promise.resolve(structuredClone(stored));
  }

  replaceNamespacedSecret(param: { namespace: string; name: string; body: V1Secret }): Promise<V1Secret> {
    const key = this.key(param.namespace, param.name);
    const current = this.secrets.get(key);
    if (!current) return Promise.reject(kubeError(404, 'not found'));
    if (param.body.metadata?.resourceVersion !== current.metadata?.resourceVersion) {
      return Promise.reject(kubeError(409, 'conflict'));
    }
    this.writes.push(`replace ${key}`);
    const stored = structuredClone(param.body);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++globalVersion) };
    this.secrets.set(key, stored);
    return Promise.resolve(structuredClone(stored));
  }

  deleteNamespacedSecret(param: { namespace: string; name: string }): Promise<V1Secret> {
    const key = this.key(param.namespace, param.name);
    const current = this.secrets.get(key);
    if (!current) return Promise.reject(kubeError(404, 'not found'));
    this.writes.push(`delete ${key}`);
    this.secrets.delete(key);
    return Promise.resolve(current);
  }

  /** The decoded data of a Secret. */
  data(namespace: string, name: string): Record<string, string> | undefined {
    const secret = this.secrets.get(this.key(namespace, name));
    if (!secret) return undefined;
    return Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
    );
  }
}

/** In-memory Events. */
export class FakeEvents implements EventsApi {
  readonly events = new Map<string, CoreV1Event>();

  create(namespace: string, event: CoreV1Event): Promise<void> {
    this.events.set(`${namespace}/${event.metadata.name ?? ''}`, structuredClone(event));
    return Promise.resolve();
  }

  mergePatch(namespace: string, name: string, patch: object): Promise<void> {
    const key = `${namespace}/${name}`;
    const current = this.events.get(key);
    if (!current) return Promise.reject(kubeError(404, 'not found'));
    this.events.set(key, applyMergePatch(current, patch) as CoreV1Event);
    return Promise.resolve();
  }

  /** `reason: message (count)` of every event, in creation order. */
  list(): { type: string; reason: string; message: string; count: number }[] {
    return [...this.events.values()].map((e) => ({
      type: e.type ?? '',
      reason: e.reason ?? '',
      message: e.message ?? '',
      count: e.count ?? 0,
    }));
  }
}
