/**
 * A reused `--data-dir` after the DynamicSecret sample changed provider. The sample's variants
 * (`dynamic-secret-sample.ts`) define the same dynamic secret in the service (`demo-app`), but a
 * service cannot change a dynamic secret's provider (nor can the DynamicSecret kind: its provider
 * type is immutable), so the definition a previous run left with another provider is in the way:
 * the new DynamicSecret would stop at `AlreadyExists`.
 *
 * Once everything is Ready, the sandbox records each sample DynamicSecret's definition in the
 * data dir (resource, provider, id and where it is in the service; {@link saveDynamicSecrets}).
 * The next run removes, before the operator starts, every recorded definition that this run's
 * samples no longer define with the same provider ({@link retireReplaced}), forced: its leases were
 * issued by what that run started (its private PostgreSQL, or its cluster), which is gone, so
 * they cannot be revoked and are dropped with it. The new DynamicSecret then creates the
 * definition afresh. A definition whose provider did not change stays, and the DynamicSecret
 * adopts it and updates it in place (a new PostgreSQL's port and password, a new cluster's URL
 * and CA): see `data-dir.ts`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { group, version } from '../api/v1alpha1/index.ts';
import { createServiceClient, staticToken, unlessNotFound } from '../client/index.ts';
import { resourceKey } from './blocked.ts';
import { statusCodeOf } from './control-plane/cluster.ts';
import { forgetExternalIds, savedBootstrapToken } from './data-dir.ts';
import { resourceOf, type WireObject } from './samples.ts';

const fileName = 'dynamic-secrets.json';

/** A DynamicSecret definition a sandbox run made, as recorded in the data dir. */
export interface DynamicSecretRecord {
  /** The resource's key (`resourceKey`). */
  readonly resource: string;
  /** The spec's provider field: `sqlDatabase` or `kubernetes`. */
  readonly provider: string;
  readonly id: string;
  readonly name: string;
  readonly projectSlug: string;
  readonly environment: string;
  readonly secretPath: string;
}

/** The spec's provider field of a DynamicSecret sample object (`sqlDatabase`, `kubernetes`). */
function providerOf(obj: WireObject): string {
  return Object.keys((obj.spec?.['provider'] as object | undefined) ?? {})[0] ?? '';
}

/** The DynamicSecrets among `samples`. */
function dynamicSecrets(samples: readonly WireObject[]): WireObject[] {
  return samples.filter((obj) => obj.kind === 'DynamicSecret');
}

/**
 * The records of the DynamicSecrets among `samples` that have an id, read from the cluster (their
 * status says the project's slug).
 */
export async function recordsOf(
  custom: CustomObjectsApi,
  samples: readonly WireObject[],
): Promise<DynamicSecretRecord[]> {
  const records: DynamicSecretRecord[] = [];
  for (const obj of dynamicSecrets(samples)) {
    const { name, namespace = '' } = obj.metadata;
    const at = { group, version, plural: 'dynamicsecrets', namespace, name };
    const live = (await custom.getNamespacedCustomObject(at)) as {
      status?: { id?: string; name?: string; projectSlug?: string };
    };
    const { id, name: serviceName, projectSlug } = live.status ?? {};
    if (!id || !serviceName || !projectSlug) continue;
    records.push({
      resource: resourceKey(resourceOf(obj)),
      provider: providerOf(obj),
      id,
      name: serviceName,
      projectSlug,
      environment: String(obj.spec?.['environment']),
      secretPath: String(obj.spec?.['secretPath']),
    });
  }
  return records;
}

/** Saves `records` into `dataDir` (no credentials: names and ids only). */
export function saveDynamicSecrets(records: readonly DynamicSecretRecord[], dataDir: string): void {
  writeFileSync(join(dataDir, fileName), JSON.stringify(records, null, 2));
}

/** The saved records, or none. */
export function readDynamicSecrets(dataDir: string): DynamicSecretRecord[] {
  const file = join(dataDir, fileName);
  if (!existsSync(file)) return [];
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DynamicSecretRecord[];
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** The records of `saved` that `samples` no longer define with the same provider. */
export function replacedRecords(
  saved: readonly DynamicSecretRecord[],
  samples: readonly WireObject[],
): DynamicSecretRecord[] {
  const current = new Map(
    dynamicSecrets(samples).map((obj) => [resourceKey(resourceOf(obj)), providerOf(obj)]),
  );
  return saved.filter((record) => current.get(record.resource) !== record.provider);
}

/** Where the sandbox's service is and the admin token that may remove definitions there. */
export interface ServiceAccess {
  readonly url: string;
  readonly token: string;
}

/**
 * Removes (forced) the service's definitions of `replaced` that are still the recorded ones (same
 * id); returns those removed. Call it before the operator starts.
 */
export async function retireReplaced(
  service: ServiceAccess,
  replaced: readonly DynamicSecretRecord[],
): Promise<DynamicSecretRecord[]> {
  if (replaced.length === 0) return [];
  const client = createServiceClient({ baseUrl: service.url, auth: staticToken(service.token) });
  const retired: DynamicSecretRecord[] = [];
  try {
    for (const record of replaced) {
      const scope = {
        projectSlug: record.projectSlug,
        environmentSlug: record.environment,
        path: record.secretPath,
      };
      const found = await unlessNotFound(client.dynamicSecrets.get(record.name, scope));
      if (found?.id !== record.id) continue;
      await client.dynamicSecrets.delete(record.name, { ...scope, isForced: true });
      retired.push(record);
    }
  } finally {
    await client.close();
  }
  return retired;
}

/** One line for the sandbox's progress output. */
function describeRetired(record: DynamicSecretRecord): string {
  const resource = record.resource.split('/').slice(-1)[0] ?? record.resource;
  return (
    `removed the dynamic secret ${record.name} of the reused data dir's last run (DynamicSecret ${resource}, ` +
    `provider ${record.provider}): this run's DynamicSecret sample defines it with another provider`
  );
}

/**
 * Deletes the DynamicSecret resources of `records` that are still in the cluster (a cluster the
 * sandbox did not start keeps them between runs): the operator, once started, finds their
 * definitions gone and lets them go instead of creating them again.
 */
async function deleteResources(custom: CustomObjectsApi, records: readonly DynamicSecretRecord[]) {
  for (const record of records) {
    const [, namespace = '', name = ''] = record.resource.split('/');
    const at = { group, version, plural: 'dynamicsecrets', namespace, name };
    await custom.deleteNamespacedCustomObject(at).catch((error: unknown) => {
      if (statusCodeOf(error) !== 404) throw error;
    });
  }
}

/**
 * With a reused `dataDir`: removes the definitions recorded there that `samples` replace (see the
 * module comment) from the cluster of `at.custom` and the service at `at.url`, forgets their ids
 * and records, and logs each.
 */
export async function retireForReuse(
  dataDir: string,
  samples: readonly WireObject[],
  at: { readonly url: string; readonly custom: CustomObjectsApi },
  log: (line: string) => void,
): Promise<void> {
  const saved = readDynamicSecrets(dataDir);
  const replaced = replacedRecords(saved, samples);
  const token = savedBootstrapToken(dataDir);
  if (replaced.length === 0 || !token) return;
  await deleteResources(at.custom, replaced);
  const retired = await retireReplaced({ url: at.url, token }, replaced);
  forgetExternalIds(
    replaced.map((record) => record.resource),
    dataDir,
  );
  saveDynamicSecrets(
    saved.filter((record) => !replaced.includes(record)),
    dataDir,
  );
  for (const record of retired) log(describeRetired(record));
}
