/**
 * A `KubeConfig` whose requests share one HTTP connection pool per cluster and credentials.
 *
 * `@kubernetes/client-node` (2.0) builds a new undici `Agent` for every request that carries TLS
 * settings (a CA, a client certificate) — that is, for every request to a real cluster. Each
 * request then pays a full TLS handshake (on both sides: the API server's CPU too), and every
 * Agent keeps its connection (an HTTP/2 session) alive until it idles out: at a few hundred
 * requests per second the operator held hundreds of sessions and hundreds of MiB. This subclass
 * hands every request the same dispatcher while the TLS material stays the same.
 *
 * Contract: `applySecurityAuthentication` sets the same dispatcher on every context as long as
 * the current cluster, user and the contents of their certificate files are unchanged. When
 * they change (a rotated client certificate or CA), the next request gets a new dispatcher and
 * the old one is closed after `retireAfterMs`, letting requests already sent through it finish.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { RequestContext } from '@kubernetes/client-node';
// The class's own module, not the package index, which loads every generated API and model class
// (resident memory: `npm run bench:modules`); the bundle also gives this module a slim
// `./gen/index.js` (scripts/build.ts).
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { Dispatcher } from 'undici';

/** How long a replaced dispatcher stays open for requests already sent through it. */
const retireAfterMs = 60_000;

export class PooledKubeConfig extends KubeConfig {
  private shared: { key: string; dispatcher: Dispatcher } | undefined;
  /** The settings last digested and their digest: hashing runs only when one of them changed. */
  private digested: { parts: readonly unknown[]; key: string } | undefined;

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    // The fresh Agent the parent set has opened no connection yet; unused, it is simply dropped.
    const fresh = context.getDispatcher();
    if (!fresh) return;
    const key = this.tlsIdentity();
    if (this.shared?.key === key) {
      context.setDispatcher(this.shared.dispatcher);
      return;
    }
    const previous = this.shared;
    this.shared = { key, dispatcher: fresh };
    if (previous) retire(previous.dispatcher);
  }

  /** Closes the shared dispatcher (its open connections, watches included). */
  async close(): Promise<void> {
    const current = this.shared;
    this.shared = undefined;
    if (current) await current.dispatcher.close();
  }

  /**
   * A digest of everything the parent turns into the dispatcher's TLS settings: the cluster's
   * address, CA and proxy, the user's certificate and key (inline, or a file with its change
   * time, so a rotated file yields a new key). A digest, so no key material is copied into a
   * key; the settings are compared by value with the last ones (the same strings while nothing
   * changed) and hashed only when they differ, since this runs for every request.
   */
  private tlsIdentity(): string {
    const parts = tlsSettings(this.getCurrentCluster(), this.getCurrentUser());
    const last = this.digested;
    if (last && sameParts(last.parts, parts)) return last.key;
    const key = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
    this.digested = { parts, key };
    return key;
  }
}

type Cluster = ReturnType<KubeConfig['getCurrentCluster']>;
type User = ReturnType<KubeConfig['getCurrentUser']>;

/** Every setting the parent turns into the dispatcher's TLS options (see `tlsIdentity`). */
function tlsSettings(cluster: Cluster, user: User): unknown[] {
  return [
    cluster?.server,
    cluster?.caData,
    fileStamp(cluster?.caFile),
    cluster?.skipTLSVerify,
    cluster?.tlsServerName,
    cluster?.proxyUrl,
    user?.certData,
    fileStamp(user?.certFile),
    user?.keyData,
    fileStamp(user?.keyFile),
  ];
}

function sameParts(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

/** `path@mtime` for a file setting, so a rewritten file changes the identity. */
function fileStamp(path: string | undefined): string | undefined {
  if (!path) return undefined;
  try {
    return `${path}@${statSync(path).mtimeMs}`;
  } catch {
    // The parent reports the unreadable file when it loads it; the path alone is the key here.
    return path;
  }
}

function retire(dispatcher: Dispatcher): void {
  const timer = setTimeout(() => {
    dispatcher.close().catch(() => undefined);
  }, retireAfterMs);
  timer.unref();
}
