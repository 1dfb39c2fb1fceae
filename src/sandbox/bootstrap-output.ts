/**
 * Keeps the Bootstrap's output across sandbox runs that share a `--data-dir`. The devserver's
 * state persists there, but the control plane starts empty each time, and a service instance can
 * be bootstrapped only once: without its token the next run's Bootstrap would stop at
 * `AlreadyBootstrapped`. So the sandbox saves the output Secret's data in the data directory
 * (mode 0600) once everything is Ready, and restores it on the next run as the Secret the
 * operator's Bootstrap recognises as its own (managed-by label, controller owner reference).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreV1Api, KubernetesObject } from '@kubernetes/client-node';
import { controllerReference, LABEL_MANAGED_BY, MANAGED_BY_VALUE } from '../runtime/object-meta.ts';

const fileName = 'bootstrap-output.json';

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
