/**
 * The decoded values of the few Secrets the operator reads on every reconcile, fed by the Secret
 * watch, so that reading them costs no request to the API server.
 *
 * Which Secrets: those a holding kind's objects reference (SecretBatch sources, looked up in that
 * kind's reference index) and those labelled `coffer.dev/source: "true"`. Every other Secret's
 * values are dropped as the informer transform sees them, as before: memory follows the
 * referenced Secrets, not the cluster's.
 *
 * Each entry carries the resourceVersion it was decoded from; a read is answered only when that is
 * the version the informer cache holds, so the values are never older than the cache. A Secret
 * that became referenced after its last watch event (created just before its SecretBatch, or
 * listed at start-up before the SecretBatches) has no entry: the caller reads it once by GET and
 * hands the answer to `keep`; from then on its watch events keep it current.
 *
 * Values are only returned, never logged: the cache has no method that prints or serialises them.
 */
import type { KubeObject } from '../runtime/informer.ts';

/** Label on a Secret that asks Coffer to keep its values from the watch, referenced or not. */
export const LABEL_SOURCE = 'coffer.dev/source';

/** Decoded key/value pairs of one Secret. */
export type SecretValues = Readonly<Record<string, string>>;

/** Whether some object of a holding kind references the Secret `namespace/name`. */
export type ReferencedCheck = (key: string) => boolean;

interface Entry {
  readonly resourceVersion: string;
  readonly values: SecretValues;
}

function keyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export class SecretValueCache {
  private readonly entries = new Map<string, Entry>();
  private readonly checks: ReferencedCheck[] = [];

  /** Adds a source of "referenced" answers (one per holding kind); see the module comment. */
  addReferencedCheck(check: ReferencedCheck): void {
    this.checks.push(check);
  }

  /** Whether the values of the Secret `namespace/name` (with `labels`) are kept. */
  wanted(namespace: string | undefined, name: string, labels?: Readonly<Record<string, string>>): boolean {
    if (labels?.[LABEL_SOURCE] === 'true') return true;
    const key = keyOf(namespace, name);
    return this.checks.some((referenced) => referenced(key));
  }

  /**
   * Called by the Secret informer's transform with every Secret it receives (its data already
   * decoded): keeps the values when wanted, drops any held ones otherwise.
   */
  observe(secret: KubeObject, values: SecretValues): void {
    const { namespace, name = '', resourceVersion, labels } = secret.metadata ?? {};
    const key = keyOf(namespace, name);
    if (resourceVersion && this.wanted(namespace, name, labels)) {
      this.entries.set(key, { resourceVersion, values });
    } else {
      this.entries.delete(key);
    }
  }

  /** Keeps values read by GET, when the Secret is wanted (see `observe`). */
  keep(secret: KubeObject, values: SecretValues): void {
    const { namespace, name = '', resourceVersion, labels } = secret.metadata ?? {};
    if (resourceVersion && this.wanted(namespace, name, labels)) {
      this.entries.set(keyOf(namespace, name), { resourceVersion, values });
    }
  }

  /** The held values of `namespace/name` at exactly `resourceVersion`, if held. */
  get(namespace: string, name: string, resourceVersion: string | undefined): SecretValues | undefined {
    const entry = this.entries.get(keyOf(namespace, name));
    return entry && resourceVersion !== undefined && entry.resourceVersion === resourceVersion
      ? entry.values
      : undefined;
  }

  /** Drops the values of a deleted Secret. */
  forget(namespace: string | undefined, name: string): void {
    this.entries.delete(keyOf(namespace, name));
  }

  /**
   * Drops the values of the Secrets `keys` (`namespace/name`) that are no longer wanted, e.g. those
   * a deleted or edited SecretBatch referenced. `labelsOf` answers the Secret's current labels.
   */
  release(
    keys: Iterable<string>,
    labelsOf: (key: string) => Readonly<Record<string, string>> | undefined,
  ): void {
    for (const key of keys) {
      if (!this.entries.has(key)) continue;
      const slash = key.indexOf('/');
      const [namespace, name] = [key.slice(0, slash), key.slice(slash + 1)];
      if (!this.wanted(namespace, name, labelsOf(key))) this.entries.delete(key);
    }
  }

  /** How many Secrets' values are held (for the `coffer_cached_secret_values` gauge). */
  get size(): number {
    return this.entries.size;
  }
}
