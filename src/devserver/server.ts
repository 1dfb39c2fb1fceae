/**
 * `startDevServer`: a local, API-compatible implementation of the secrets and identity
 * service on plain node:http, with the real service's semantics (see
 * `/work/shared/spec/service-api-facts.md`): bootstrap, identities and their auth methods,
 * access tokens, projects, environments, memberships, privileges, roles, templates,
 * integrations, certificate authorities, secrets, folders, the project event stream, and dynamic
 * secrets with their leases (PostgreSQL and Kubernetes providers; expired leases revoked by a sweep).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DevApp, type KubernetesLoginRecord } from './app.ts';
import { FaultInjector, type FaultOptions } from './http/faults.ts';
import { createRequestHandler } from './http/pipeline.ts';
import { Router } from './http/router.ts';
import { loadSnapshot, Persister } from './state/persistence.ts';
import { createRateLimit, type RateLimitOptions } from './http/rate-limit.ts';
import { adminRoutes, healthRoutes } from './routes/admin.ts';
import { apiRoutes } from './routes/index.ts';
import { restoreSnapshot, snapshotApp } from './state/snapshot.ts';
import { DevServerStats } from './http/stats.ts';

export type { FaultOptions } from './http/faults.ts';
export type { RateLimitOptions } from './http/rate-limit.ts';
export type { StatsSnapshot } from './http/stats.ts';
export type { KubernetesLoginRecord } from './app.ts';

/** Options of `startDevServer`; every field is optional. */
export interface DevServerOptions {
  /** Interface to listen on (default `127.0.0.1`). */
  host?: string;
  /** Port (default 0: a free port). */
  port?: number;
  /** Persist state to this JSON file (atomic, debounced after mutations) and reload it on start. */
  dataFile?: string;
  /** Per-minute limits per client IP for the read, write and secrets buckets (off by default). */
  rateLimit?: RateLimitOptions;
  /** Largest accepted request body in bytes (default 1 MiB); larger bodies get 413. */
  maxBodyBytes?: number;
  /** Fault injection at start; adjustable later via `faults` or the admin route. */
  faults?: FaultOptions;
  /** Serve the `/__devserver/*` admin routes (default false). */
  enableAdmin?: boolean;
  /** Clock in ms since the epoch (default `Date.now`); tests inject one to expire tokens. */
  now?: () => number;
  /** Debounce of data-file saves in ms (default 100). */
  persistDebounceMs?: number;
  /** How often leases past their expiry are revoked, in ms (default 1000; tests use less). */
  leaseSweepMs?: number;
  /** Called with unexpected errors (answered as 500); default: ignored. */
  onError?: (err: unknown) => void;
}

/** A running devserver. */
export interface DevServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  host: string;
  port: number;
  /** Live request/write counters. */
  stats: DevServerStats;
  /** Live fault settings. */
  faults: FaultInjector;
  /** The Kubernetes-auth logins accepted so far, oldest first (see `KubernetesLoginRecord`). */
  kubernetesLogins(): KubernetesLoginRecord[];
  /** Writes the data file now (no-op without `dataFile`). */
  flush(): Promise<void>;
  /** Stops accepting connections, ends open streams, and saves pending state. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 1024 * 1024;

/** The application with its state loaded and, with `dataFile`, its persister. */
async function createApp(options: DevServerOptions, now: () => number, onError: (err: unknown) => void) {
  const snapshot = options.dataFile ? await loadSnapshot(options.dataFile) : undefined;
  let persister: Persister | undefined;
  const app = new DevApp({
    ...restoreSnapshot(snapshot),
    now,
    onChange: () => persister?.schedule(),
    ...(options.leaseSweepMs === undefined ? {} : { leaseSweepMs: options.leaseSweepMs }),
  });
  if (options.dataFile) {
    persister = new Persister(
      options.dataFile,
      () => snapshotApp(app),
      options.persistDebounceMs ?? 100,
      onError,
    );
  }
  const flush = () => persister?.flush() ?? Promise.resolve();
  return { app, flush };
}

/** Starts a devserver and resolves once it is listening. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => undefined);
  const { app, flush } = await createApp(options, now, onError);
  const stats = new DevServerStats(now);
  const faults = new FaultInjector(options.faults);
  const router = new Router();
  const routes = [...healthRoutes(), ...apiRoutes(app)];
  if (options.enableAdmin) routes.push(...adminRoutes({ app, stats, faults, flush }));
  for (const route of routes) router.add(route);
  const rateLimit = options.rateLimit ? createRateLimit(options.rateLimit, now) : undefined;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const server = createServer(
    { keepAliveTimeout: 65_000, requestTimeout: 0 },
    createRequestHandler({ app, router, stats, faults, rateLimit, maxBodyBytes, onError }),
  );
  const host = options.host ?? '127.0.0.1';
  await listen(server, host, options.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  app.leaseReaper.start();
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    stats,
    faults,
    kubernetesLogins: () => app.kubernetesLogins(),
    flush,
    close: async () => {
      await app.shutdown();
      await closeServer(server);
      await flush();
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Streams (SSE) and in-flight keep-alive sockets would hold close() open.
    setTimeout(() => server.closeAllConnections(), 200).unref();
  });
}
