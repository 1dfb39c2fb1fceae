/**
 * A SecretWriter that answers "unchanged" from the informer cache when it can, so a poll of an
 * up-to-date resource costs no Kubernetes request for its output Secrets.
 *
 * The cache holds each Secret's metadata and the hash of its actual data (`secret-cache.ts`).
 * When the cached Secret is Coffer's, controlled by the owner, of the right type, and both its
 * `coffer.dev/data-hash` annotation and its actual data hash equal the hash of the desired data,
 * nothing needs writing. Anything else (missing, edited, stale cache) goes to the real writer,
 * which reads the Secret and decides; a cache that lags behind a write only costs that GET.
 */
import type { ObjectCache } from '../managed/kube-objects.ts';
import {
  ANNOTATION_DATA_HASH,
  controllerOf,
  isManagedByCoffer,
  type KubeObject,
} from '../runtime/object-meta.ts';
import { dataHash, type SecretOutput, type SecretWriter } from '../runtime/secret-writer.ts';
import type { PayloadMeta } from './secret-cache.ts';

function isCurrent(cached: PayloadMeta, owner: KubeObject, output: SecretOutput): boolean {
  const hash = dataHash(output.data);
  return (
    isManagedByCoffer(cached) &&
    controllerOf(cached)?.uid === owner.metadata?.uid &&
    (cached.type ?? 'Opaque') === (output.type ?? 'Opaque') &&
    cached.metadata?.annotations?.[ANNOTATION_DATA_HASH] === hash &&
    cached.dataHash === hash
  );
}

/** Wraps `writer` with the cache fast path described in the module comment. */
export function cachedSecretWriter(writer: SecretWriter, cache: ObjectCache<PayloadMeta>): SecretWriter {
  return {
    write(owner, output) {
      const namespace = output.namespace ?? owner.metadata?.namespace;
      const cached = namespace ? cache.get(namespace, output.name) : undefined;
      if (cached && isCurrent(cached, owner, output)) return Promise.resolve('unchanged');
      return writer.write(owner, output);
    },
  };
}
