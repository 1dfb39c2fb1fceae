/**
 * One authenticated service client per connection and credential version, shared by every
 * controller (after external-secrets' client manager).
 *
 * Contract:
 * - `get(key, build)` returns the cached client when `key.connection` maps to the same
 *   `credentialVersion`; otherwise it builds a new one (once: concurrent callers share the same
 *   promise) and retires the old one;
 * - a retired client is closed after `closeDelayMs`, so calls already using it can finish;
 * - a failed build is not cached: the next `get` tries again;
 * - `peek(connection)` returns the current client whatever its credential version, building and
 *   retiring nothing (a deleted connection's last client, see `ConnectionResolver`);
 * - `close()` closes every client at once (shutdown).
 *
 * The credential version is whatever changes when the credentials do, e.g. the Connection's
 * generation plus the resourceVersion of its Secret.
 */
import type { Logger } from 'pino';
import { systemClock, type CancelTimer, type Clock } from '../runtime/clock.ts';

/** Identifies a client: which connection, and which version of its credentials. */
export interface ClientKey {
  /** Stable identity of the connection, e.g. `Connection/team-a/main` or `ClusterConnection/shared`. */
  readonly connection: string;
  readonly credentialVersion: string;
}

export interface ClientCacheOptions<C> {
  /** Releases a client's resources (HTTP agents, timers). */
  readonly close?: (client: C) => void | Promise<void>;
  /** Grace period before a replaced client is closed (default 30 s). */
  readonly closeDelayMs?: number;
  readonly clock?: Clock;
  readonly log?: Logger;
}

export interface ClientCache<C> {
  /** The client for `key`, built with `build` when missing or when the credential version changed. */
  get(key: ClientKey, build: () => Promise<C>): Promise<C>;
  /** The current client of a connection, whatever its credential version; undefined when none. */
  peek(connection: string): Promise<C> | undefined;
  /** Forgets and closes the client of a connection (e.g. the Connection was deleted). */
  invalidate(connection: string): void;
  /** Closes every client, including retired ones still in their grace period. */
  close(): Promise<void>;
  /** Number of current (not retired) clients. */
  readonly size: number;
}

interface Entry<C> {
  readonly version: string;
  readonly client: Promise<C>;
}

/** Creates an empty cache. */
export function createClientCache<C>(options: ClientCacheOptions<C> = {}): ClientCache<C> {
  const entries = new Map<string, Entry<C>>();
  const retiring = new Map<Promise<C>, CancelTimer>();
  const clock = options.clock ?? systemClock;
  const closeDelayMs = options.closeDelayMs ?? 30_000;

  async function closeClient(client: C): Promise<void> {
    try {
      await options.close?.(client);
    } catch (error) {
      options.log?.warn({ err: error }, 'cannot close service client');
    }
  }

  function retire(entry: Entry<C>): void {
    const cancel = clock.setTimeout(() => {
      retiring.delete(entry.client);
      entry.client.then(closeClient, () => undefined);
    }, closeDelayMs);
    retiring.set(entry.client, cancel);
  }

  function get(key: ClientKey, build: () => Promise<C>): Promise<C> {
    const current = entries.get(key.connection);
    if (current?.version === key.credentialVersion) return current.client;
    const client = build();
    const entry = { version: key.credentialVersion, client };
    entries.set(key.connection, entry);
    if (current) retire(current);
    client.catch(() => {
      // Do not cache a failure; only remove the entry if it was not replaced meanwhile.
      if (entries.get(key.connection) === entry) entries.delete(key.connection);
    });
    return client;
  }

  function invalidate(connection: string): void {
    const current = entries.get(connection);
    if (!current) return;
    entries.delete(connection);
    retire(current);
  }

  async function close(): Promise<void> {
    const all = [...entries.values()].map((entry) => entry.client);
    for (const [client, cancel] of retiring) {
      cancel();
      all.push(client);
    }
    entries.clear();
    retiring.clear();
    const settled = await Promise.allSettled(all);
    for (const result of settled) if (result.status === 'fulfilled') await closeClient(result.value);
  }

  return {
    get,
    peek: (connection) => entries.get(connection)?.client,
    invalidate,
    close,
    get size() {
      return entries.size;
    },
  };
}
