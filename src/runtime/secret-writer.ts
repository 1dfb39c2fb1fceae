/**
 * Publishes outputs (tokens, ids, certificates) into Secrets that Coffer owns.
 *
 * Contract:
 * - a written Secret has a controller owner reference to the resource (garbage-collected with it),
 *   the label `app.kubernetes.io/managed-by: coffer` and the annotation `coffer.dev/data-hash`
 *   (sha256 over the sorted key/value pairs);
 * - a Secret that exists but is not Coffer's (no label, or controlled by another object) is never
 *   touched: `TerminalError` with reason `SecretNotOwned`;
 * - nothing is written when the stored data already hashes to the desired hash; a Secret whose
 *   data was edited by hand (hash differs) is rewritten, and a deleted one is re-created;
 * - values never appear in errors or logs.
 */
import { createHash } from 'node:crypto';
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { ConflictError, kubernetesStatus, TerminalError } from './errors.ts';
import {
  ANNOTATION_DATA_HASH,
  controllerOf,
  controllerReference,
  isManagedByCoffer,
  LABEL_MANAGED_BY,
  MANAGED_BY_VALUE,
  type KubeObject,
} from './object-meta.ts';
import { commonReasons } from './common-reasons.ts';

/** One Secret to publish. */
export interface SecretOutput {
  /** Secret name. */
  readonly name: string;
  /** Defaults to the owner's namespace (required for cluster-scoped owners). */
  readonly namespace?: string;
  /** Plain (not base64) string values. */
  readonly data: Readonly<Record<string, string>>;
  /** Secret type; default `Opaque`. */
  readonly type?: string;
}

export type SecretWriteResult = 'created' | 'updated' | 'unchanged';

/** Writes owned Secrets. */
export interface SecretWriter {
  write(owner: KubeObject, output: SecretOutput): Promise<SecretWriteResult>;
}

/** The subset of `CoreV1Api` the writer uses. */
export type SecretsApi = Pick<
  CoreV1Api,
  'readNamespacedSecret' | 'createNamespacedSecret' | 'replaceNamespacedSecret' | 'deleteNamespacedSecret'
>;

export interface SecretWriterOptions {
  readonly api: SecretsApi;
  /** Reads a Secret (e.g. from an informer cache); defaults to a GET through `api`. */
  readonly read?: (namespace: string, name: string) => Promise<V1Secret | undefined>;
}

/** sha256 (hex) over the key-sorted entries; the value of `coffer.dev/data-hash`. */
export function dataHash(data: Readonly<Record<string, string>>): string {
  const entries = Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}

function decode(data: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(data ?? {}))
    out[key] = Buffer.from(value, 'base64').toString('utf8');
  return out;
}

function encode(data: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) out[key] = Buffer.from(value, 'utf8').toString('base64');
  return out;
}

/**
 * Ours when Coffer's label is present and the controller reference names the owner. A matching
 * kind and name with another uid is a previous incarnation of the owner (deleted and re-created
 * before garbage collection ran), which we take over.
 */
function isOwnedBy(secret: V1Secret, owner: KubeObject): boolean {
  const controller = controllerOf(secret);
  if (!isManagedByCoffer(secret) || !controller) return false;
  if (controller.uid === owner.metadata?.uid) return true;
  return controller.kind === owner.kind && controller.name === owner.metadata?.name;
}

function isUpToDate(secret: V1Secret, owner: KubeObject, hash: string, type: string): boolean {
  return (
    secret.metadata?.annotations?.[ANNOTATION_DATA_HASH] === hash &&
    dataHash(decode(secret.data)) === hash &&
    (secret.type ?? 'Opaque') === type &&
    controllerOf(secret)?.uid === owner.metadata?.uid
  );
}

function desiredSecret(
  owner: KubeObject,
  output: SecretOutput,
  namespace: string,
  base?: V1Secret,
): V1Secret {
  // managedFields belong to the server; sending them back would rewrite field ownership.
  const { managedFields: _managedFields, ...metadata } = base?.metadata ?? {};
  const otherOwners = (metadata.ownerReferences ?? []).filter((ref) => ref.controller !== true);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      ...metadata,
      name: output.name,
      namespace,
      labels: { ...metadata.labels, [LABEL_MANAGED_BY]: MANAGED_BY_VALUE },
      annotations: { ...metadata.annotations, [ANNOTATION_DATA_HASH]: dataHash(output.data) },
      ownerReferences: [...otherOwners, controllerReference(owner)],
    },
    type: output.type ?? 'Opaque',
    data: encode(output.data),
  };
}

/** A SecretWriter backed by the core/v1 API. */
export function createSecretWriter(options: SecretWriterOptions): SecretWriter {
  const { api } = options;
  const read =
    options.read ??
    (async (namespace: string, name: string) => {
      try {
        return await api.readNamespacedSecret({ namespace, name });
      } catch (error) {
        if (kubernetesStatus(error) === 404) return undefined;
        throw error;
      }
    });

  async function write(owner: KubeObject, output: SecretOutput): Promise<SecretWriteResult> {
    const namespace = output.namespace ?? owner.metadata?.namespace;
    if (!namespace)
      throw new Error(`cannot write Secret ${output.name}: no namespace for a cluster-scoped owner`);
    const type = output.type ?? 'Opaque';
    const existing = await read(namespace, output.name);
    if (!existing) {
      await api.createNamespacedSecret({ namespace, body: desiredSecret(owner, output, namespace) });
      return 'created';
    }
    if (!isOwnedBy(existing, owner)) {
      throw new TerminalError(
        commonReasons.names.SecretNotOwned,
        `cannot write Secret ${namespace}/${output.name}: it exists and is not managed by this resource; ` +
          'rename the output or delete the Secret',
      );
    }
    if (isUpToDate(existing, owner, dataHash(output.data), type)) return 'unchanged';
    if ((existing.type ?? 'Opaque') !== type) {
      // The type of a Secret is immutable: replace the object.
      await api.deleteNamespacedSecret({ namespace, name: output.name });
      await api.createNamespacedSecret({ namespace, body: desiredSecret(owner, output, namespace) });
      return 'updated';
    }
    await api.replaceNamespacedSecret({
      namespace,
      name: output.name,
      body: desiredSecret(owner, output, namespace, existing),
    });
    return 'updated';
  }

  return {
    async write(owner, output) {
      try {
        return await write(owner, output);
      } catch (error) {
        const status = kubernetesStatus(error);
        // 409: created or changed concurrently (AlreadyExists, or our resourceVersion is stale).
        if (status === 409) {
          throw new ConflictError(
            commonReasons.names.Conflict,
            `cannot write Secret ${output.name}: it changed concurrently`,
            {
              cause: error,
            },
          );
        }
        throw error;
      }
    },
  };
}
