/**
 * What lets a later sandbox run reuse a `--data-dir`. The devserver's state persists there, but
 * the control plane starts empty each time, so once everything is Ready the sandbox also saves:
 *
 * - the Bootstrap's output Secret (mode 0600): an instance can be bootstrapped only once, and
 *   without its token the next run's Bootstrap would stop at `AlreadyBootstrapped`. It is restored
 *   as the Secret the operator's Bootstrap recognises as its own (managed-by label, controller
 *   owner reference);
 * - the external id of every resource: the next run sets `coffer.dev/external-id` on the samples,
 *   so the operator adopts the service objects instead of failing to create them again;
 * - the DynamicSecret sample's definitions (`dynamic-secret-reuse.ts`): the next run removes one
 *   whose provider changed, which no DynamicSecret can adopt.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreV1Api, KubernetesObject } from '@kubernetes/client-node';
import { TOKEN_KEY } from '../controllers/bootstrap/output-connection.ts';
import {
  ANNOTATION_EXTERNAL_ID,
  controllerReference,
  LABEL_MANAGED_BY,
  MANAGED_BY_VALUE,
} from '../runtime/object-meta.ts';
import type { WireObject } from './samples.ts';

const fileName = 'bootstrap-output.json';
const idsFileName = 'external-ids.json';

/** Where the output is kept inside `dataDir`. */
export function bootstrapOutputFile(dataDir: string): string {
  return join(dataDir, fileName);
}

/** Saves the data (base64 values, as stored) of Secret `namespace/name` into `dataDir`. */
export async function saveBootstrapOutput(
  core: CoreV1Api,
  at: { namespace: string; name: string },
  dataDir: string,
): Promise<void> {
  const secret = await core.readNamespacedSecret(at);
  writeFileSync(bootstrapOutputFile(dataDir), JSON.stringify({ data: secret.data ?? {} }), { mode: 0o600 });
}

/**
 * Creates the output Secret `name` of `bootstrap` (as stored: with its uid) from the saved data.
 * Returns false when nothing was saved.
 */
export async function restoreBootstrapOutput(
  core: CoreV1Api,
  bootstrap: KubernetesObject,
  name: string,
  dataDir: string,
): Promise<boolean> {
  const file = bootstrapOutputFile(dataDir);
  if (!existsSync(file)) return false;
  let data: Record<string, string>;
  try {
    data = (JSON.parse(readFileSync(file, 'utf8')) as { data: Record<string, string> }).data;
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  const namespace = bootstrap.metadata?.namespace ?? '';
  await core.createNamespacedSecret({
    namespace,
    body: {
      metadata: {
        name,
        namespace,
        labels: { [LABEL_MANAGED_BY]: MANAGED_BY_VALUE },
        ownerReferences: [controllerReference(bootstrap)],
      },
      type: 'Opaque',
      data,
    },
  });
  return true;
}

/** The admin token of the saved Bootstrap output (see `restoreBootstrapOutput`), if any. */
export function savedBootstrapToken(dataDir: string): string | undefined {
  const file = bootstrapOutputFile(dataDir);
  if (!existsSync(file)) return undefined;
  const { data } = JSON.parse(readFileSync(file, 'utf8')) as { data?: Record<string, string> };
  const token = data?.[TOKEN_KEY];
  return token ? Buffer.from(token, 'base64').toString('utf8') : undefined;
}

/** Saves `ids` (by `resourceKey`) into `dataDir`. */
export function saveExternalIds(ids: ReadonlyMap<string, string>, dataDir: string): void {
  writeFileSync(join(dataDir, idsFileName), JSON.stringify(Object.fromEntries(ids), null, 2));
}

/** The saved ids (by `resourceKey`), or an empty map when none were saved. */
export function readExternalIds(dataDir: string): Map<string, string> {
  const file = join(dataDir, idsFileName);
  if (!existsSync(file)) return new Map();
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>));
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** Forgets the saved ids of the resources `keys` (by `resourceKey`). */
export function forgetExternalIds(keys: readonly string[], dataDir: string): void {
  const ids = readExternalIds(dataDir);
  const before = ids.size;
  for (const key of keys) ids.delete(key);
  if (ids.size !== before) saveExternalIds(ids, dataDir);
}

/** `objects` with the `coffer.dev/external-id` annotation set where `idOf` knows an id. */
export function withExternalIds(
  objects: readonly WireObject[],
  idOf: (obj: WireObject) => string | undefined,
): WireObject[] {
  return objects.map((obj) => {
    const id = idOf(obj);
    if (!id) return obj;
    const annotations = { ...(obj.metadata['annotations'] as Record<string, string> | undefined) };
    annotations[ANNOTATION_EXTERNAL_ID] = id;
    return { ...obj, metadata: { ...obj.metadata, annotations } };
  });
}
