// Informer behaviour against a scripted fake API server on loopback: list, watch, relist after
// errors, 410 handling, the silent-watch watchdog, namespace scopes and selectors. The real API
// server (including a restart mid-watch) is covered in test/integration/runtime-informer.test.ts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Informer, type KubeObject } from './informer.ts';
import { createLogger } from './logger.ts';

interface Call {
  readonly path: string;
  readonly query: URLSearchParams;
}

/** A fake collection endpoint: lists `objects`, streams events pushed with `emit`. */
class FakeApi {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: Call[] = [];
  readonly watches: ServerResponse[] = [];
  /** Status codes to answer the next list requests with, one per request. */
  readonly listFailures: number[] = [];
  rv = 100;
  private server: Server | undefined;

  async start(): Promise<number> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return (this.server?.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  put(ns: string, name: string, data: Record<string, string> = {}): KubeObject {
    const obj = {
      metadata: { namespace: ns, name, resourceVersion: String(++this.rv), managedFields: [{}] },
      data,
    };
    this.objects.set(`${ns}/${name}`, obj);
    return obj;
  }

  emit(type: string, object: unknown): void {
    for (const w of this.watches) w.write(`${JSON.stringify({ type, object })}\n`);
  }

  /** Drops every open watch connection, as a crashing API server would. */
  killWatches(): void {
    for (const w of this.watches.splice(0)) w.socket?.destroy();
  }

  lists(): Call[] {
    return this.calls.filter((c) => c.query.get('watch') !== 'true');
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    this.calls.push({ path: url.pathname, query: url.searchParams });
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      this.watches.push(res);
      return;
    }
    const failure = this.listFailures.shift();
    if (failure) {
      res.writeHead(failure, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: failure, message: 'injected failure' }));
      return;
    }
    const ns = /\/namespaces\/([^/]+)\//.exec(url.pathname)?.[1];
    const items = [...this.objects.values()].filter((o) => !ns || o.metadata?.namespace === ns);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ metadata: { resourceVersion: String(this.rv) }, items }));
  }
}

let api: FakeApi;
let kubeConfig: KubeConfig;
const informers: Informer[] = [];

beforeEach(async () => {
  api = new FakeApi();
  const port = await api.start();
  kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'fake', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'anon' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'anon' }],
    currentContext: 'fake',
  });
});

afterEach(async () => {
  await Promise.all(informers.splice(0).map((i) => i.stop()));
  await api.stop();
});

function newInformer(
  options: {
    namespaces?: string[];
    watchdogMs?: number;
    labelSelector?: string;
    transform?: (obj: KubeObject) => KubeObject;
    keepApplyBookkeeping?: boolean;
  } = {},
) {
  const informer = new Informer({
    name: 'configmaps',
    kubeConfig,
    resource: { group: '', version: 'v1', plural: 'configmaps', namespaced: true },
    log: createLogger({ level: 'silent' }),
    backoff: { baseMs: 10, maxMs: 20 },
    ...options,
  });
  const events: string[] = [];
  informer.on('add', (o) => events.push(`add ${o.metadata?.name}`));
  informer.on('update', (o, old) =>
    events.push(`update ${o.metadata?.name} ${old.metadata?.resourceVersion}→${o.metadata?.resourceVersion}`),
  );
  informer.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
  informers.push(informer);
  return { informer, events };
}

const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

const eventually = (fn: () => void) => vi.waitFor(fn, { timeout: 5_000, interval: 5 });

describe('Informer', () => {
  it('lists, syncs, then applies watch events; no update when the resourceVersion is unchanged', async () => {
    api.put('a', 'one');
    const { informer, events } = newInformer();
    expect(informer.hasSynced()).toBe(false);
    informer.start();
    await informer.waitForSync();
    expect(events).toEqual(['add one']);
    expect(informer.get('a', 'one')?.metadata?.managedFields).toBeUndefined();
    await eventually(() => expect(api.watches).toHaveLength(1));
    const two = api.put('a', 'two');
    api.emit('ADDED', two);
    const one = api.objects.get('a/one');
    api.emit('MODIFIED', one);
    const oneV2 = api.put('a', 'one', { k: 'v' });
    api.emit('MODIFIED', oneV2);
    api.emit('DELETED', two);
    await eventually(() => expect(events).toHaveLength(4));
    expect(events).toEqual([
      'add one',
      'add two',
      `update one 101→${oneV2.metadata?.resourceVersion}`,
      'delete two',
    ]);
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(['one']);
    expect(informer.restarts).toBe(0);
  });

  it('caches objects without managedFields and the last-applied annotation, other annotations kept', async () => {
    const listed = api.put('a', 'one');
    listed.metadata = {
      ...listed.metadata,
      annotations: { [lastApplied]: '{"kind":"Secret"}', 'example.com/kept': 'yes' },
    };
    const { informer } = newInformer();
    informer.start();
    await informer.waitForSync();
    expect(informer.get('a', 'one')?.metadata).toEqual({
      namespace: 'a',
      name: 'one',
      resourceVersion: listed.metadata.resourceVersion,
      annotations: { 'example.com/kept': 'yes' },
    });
    await eventually(() => expect(api.watches).toHaveLength(1));
    const watched = api.put('a', 'two');
    watched.metadata = { ...watched.metadata, annotations: { [lastApplied]: '{}' } };
    api.emit('ADDED', watched);
    await eventually(() => expect(informer.get('a', 'two')?.metadata?.annotations).toEqual({}));
    expect(informer.get('a', 'two')?.metadata?.managedFields).toBeUndefined();
  });

  it('keeps managedFields and the last-applied annotation with keepApplyBookkeeping', async () => {
    const listed = api.put('a', 'one');
    listed.metadata = { ...listed.metadata, annotations: { [lastApplied]: '{}' } };
    const { informer } = newInformer({ keepApplyBookkeeping: true });
    informer.start();
    await informer.waitForSync();
    expect(informer.get('a', 'one')?.metadata?.managedFields).toEqual([{}]);
    expect(informer.get('a', 'one')?.metadata?.annotations).toEqual({ [lastApplied]: '{}' });
  });

  it('applies the transform before caching and before every handler, deletes included', async () => {
    api.put('a', 'one', { k: 'listed' });
    const seen: unknown[] = [];
    const { informer } = newInformer({
      transform: (o) =>
        ({ metadata: o.metadata, keys: Object.keys((o as { data?: object }).data ?? {}) }) as KubeObject,
    });
    informer.on('add', (o) => seen.push(o));
    informer.on('delete', (o) => seen.push(o));
    informer.start();
    await informer.waitForSync();
    await eventually(() => expect(api.watches).toHaveLength(1));
    api.emit('DELETED', api.put('a', 'one', { k: 'v', other: 'w' }));
    await eventually(() => expect(seen).toHaveLength(2));
    expect(seen.map((o) => (o as { keys: string[]; data?: unknown }).keys)).toEqual([['k'], ['k', 'other']]);
    expect(seen.some((o) => 'data' in (o as object))).toBe(false);
    expect(informer.list()).toEqual([]);
  });

  it('watches with bookmarks from the listed resourceVersion and passes selectors', async () => {
    const { informer } = newInformer({ labelSelector: 'app.kubernetes.io/managed-by=coffer' });
    informer.start();
    await eventually(() => expect(api.watches).toHaveLength(1));
    const [list, watch] = api.calls;
    expect(list?.query.get('labelSelector')).toBe('app.kubernetes.io/managed-by=coffer');
    expect(list?.query.get('limit')).toBe('500');
    expect(watch?.query.get('allowWatchBookmarks')).toBe('true');
    expect(watch?.query.get('resourceVersion')).toBe('100');
    expect(watch?.query.get('labelSelector')).toBe('app.kubernetes.io/managed-by=coffer');
    expect(Number(watch?.query.get('timeoutSeconds'))).toBeGreaterThanOrEqual(300);
  });

  it('relists after the watch connection drops and sees changes made meanwhile', async () => {
    api.put('a', 'stays');
    api.put('a', 'deleted-while-down');
    const { informer, events } = newInformer();
    informer.start();
    await eventually(() => expect(api.watches).toHaveLength(1));
    api.objects.delete('a/deleted-while-down');
    api.put('a', 'created-while-down');
    api.killWatches();
    await eventually(() => expect(events).toContain('add created-while-down'));
    expect(events).toContain('delete deleted-while-down');
    expect(informer.restarts).toBe(1);
    expect(api.lists()).toHaveLength(2);
  });

  it('retries a failing list with backoff and only then reports synced', async () => {
    api.listFailures.push(500, 403);
    const { informer } = newInformer();
    informer.start();
    await informer.waitForSync();
    expect(api.lists()).toHaveLength(3);
    expect(informer.restarts).toBe(2);
  });

  it('relists at once on an expired resourceVersion without counting a restart', async () => {
    const { informer } = newInformer();
    informer.start();
    await eventually(() => expect(api.watches).toHaveLength(1));
    api.emit('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' });
    await eventually(() => expect(api.lists()).toHaveLength(2));
    expect(informer.restarts).toBe(0);
  });

  it('resumes from the last bookmark when the server ends a watch normally', async () => {
    const { informer } = newInformer();
    informer.start();
    await eventually(() => expect(api.watches).toHaveLength(1));
    api.emit('BOOKMARK', { metadata: { resourceVersion: '555' } });
    await new Promise((resolve) => setImmediate(resolve));
    for (const w of api.watches.splice(0)) w.end();
    await eventually(() => expect(api.watches).toHaveLength(1));
    const watches = api.calls.filter((c) => c.query.get('watch') === 'true');
    expect(watches.at(-1)?.query.get('resourceVersion')).toBe('555');
    expect(api.lists()).toHaveLength(1);
    expect(informer.restarts).toBe(0);
  });

  it('relists when a watch stays silent past the watchdog', async () => {
    const { informer } = newInformer({ watchdogMs: 50 });
    informer.start();
    await eventually(() => expect(informer.restarts).toBeGreaterThanOrEqual(1));
    await eventually(() => expect(api.lists().length).toBeGreaterThanOrEqual(2));
  });

  it('runs one list+watch per namespace behind one store and syncs only when all have listed', async () => {
    api.put('a', 'in-a');
    api.put('b', 'in-b');
    api.put('c', 'in-c');
    api.listFailures.push(500);
    const { informer } = newInformer({ namespaces: ['a', 'b'] });
    informer.start();
    await informer.waitForSync();
    expect(
      informer
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['in-a', 'in-b']);
    expect(new Set(api.lists().map((c) => c.path))).toEqual(
      new Set(['/api/v1/namespaces/a/configmaps', '/api/v1/namespaces/b/configmaps']),
    );
    expect(informer.restarts).toBe(1);
  });

  it('answers index queries', async () => {
    api.put('a', 'x', { secret: 's1' });
    api.put('a', 'y', { secret: 's1' });
    api.put('a', 'z', { secret: 's2' });
    const { informer } = newInformer();
    informer.addIndex('secret', (o) => [(o as { data?: { secret?: string } }).data?.secret ?? '']);
    informer.start();
    await informer.waitForSync();
    expect(
      informer
        .byIndex('secret', 's1')
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['x', 'y']);
  });
});
