/**
 * What the sandbox's DynamicSecret sample issues leases from. With PostgreSQL's binaries installed
 * (see `postgres.ts`), a private PostgreSQL the sandbox starts, under its work directory: the
 * registry's sample (`config/samples/dynamic-secret.yaml`, the `sqlDatabase` provider) is pointed
 * at it and its admin password Secret gets the server's superuser password. Otherwise the variant
 * `config/samples/dynamic-secret-kubernetes.yaml` replaces that file: the `kubernetes` provider on
 * the sandbox's own cluster (its API server URL and CA), issuing tokens of a ServiceAccount of the
 * sandbox namespace. Either way the dynamic secret is named `demo-app` in the service, which the
 * WorkloadSecret sample leases.
 */
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { findRegistration } from '../controllers/registry.ts';
import { postgresInstalled, startPostgres, type PostgresServer } from './postgres.ts';

/** The provider the DynamicSecret sample uses, and what it needs to reach. */
export type DynamicSecretBackend =
  | { readonly provider: 'sqlDatabase'; readonly postgres: PostgresServer }
  | { readonly provider: 'kubernetes'; readonly url: string; readonly ca: string | undefined };

/** Provider names of {@link DynamicSecretBackend}. */
export type DynamicSecretProvider = DynamicSecretBackend['provider'];

/** The variant of the DynamicSecret sample with the Kubernetes provider, beside the registry's. */
export const kubernetesVariantFile = 'dynamic-secret-kubernetes.yaml';

/** The registry's DynamicSecret sample file, relative to the samples directory. */
export function dynamicSecretSampleFile(): string {
  const sample = findRegistration('DynamicSecret')?.sample ?? '';
  return sample.slice(sample.lastIndexOf('/') + 1);
}

/** A wire object as planSamples handles it (kept structural to avoid an import cycle). */
interface SampleObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The CA (PEM) and URL of the current cluster of `kc`. */
function clusterEndpoint(kc: KubeConfig): { url: string; ca: string | undefined } {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('cannot use the Kubernetes provider: the kubeconfig has no current cluster');
  let ca: string | undefined;
  if (cluster.caData) ca = Buffer.from(cluster.caData, 'base64').toString('utf8');
  else if (cluster.caFile) ca = readFileSync(cluster.caFile, 'utf8');
  return { url: cluster.server, ca: cluster.skipTLSVerify ? undefined : ca };
}

/** Options of {@link startDynamicSecretBackend}. */
export interface BackendOptions {
  /** Force a provider (default: sqlDatabase when PostgreSQL is installed, else kubernetes). */
  readonly provider?: DynamicSecretProvider;
  /** Where PostgreSQL's directory is made. */
  readonly dir: string;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Starts what the DynamicSecret sample needs: a PostgreSQL (stop it with `postgres.stop()`), or
 * nothing for the Kubernetes provider. Throws when sqlDatabase is asked for and PostgreSQL is not
 * installed.
 */
export async function startDynamicSecretBackend(
  kc: KubeConfig,
  options: BackendOptions,
): Promise<DynamicSecretBackend> {
  const installed = postgresInstalled(options.env);
  const provider = options.provider ?? (installed ? 'sqlDatabase' : 'kubernetes');
  if (provider === 'kubernetes') return { provider, ...clusterEndpoint(kc) };
  const postgres = await startPostgres({ parentDir: options.dir, env: options.env });
  return { provider, postgres };
}

/** One line for the sandbox's progress output (no password). */
export function describeBackend(backend: DynamicSecretBackend): string {
  if (backend.provider === 'kubernetes')
    return 'PostgreSQL not installed: the DynamicSecret sample issues ServiceAccount tokens (Kubernetes provider)';
  const { host, port, dir } = backend.postgres;
  return `PostgreSQL listening on ${host}:${port} (data in ${dir}) for the DynamicSecret sample`;
}

/** Points a sqlDatabase provider at the PostgreSQL; returns its password Secret's name and key. */
function pointAtPostgres(provider: Record<string, unknown>, postgres: PostgresServer) {
  const { host, port, user, database } = postgres;
  Object.assign(provider, { host, port, username: user, database });
  return provider['passwordSecretRef'] as { name?: string; key?: string } | undefined;
}

function pointAtCluster(
  provider: Record<string, unknown>,
  backend: Extract<DynamicSecretBackend, { provider: 'kubernetes' }>,
  namespace: string,
): void {
  provider['url'] = backend.url;
  provider['namespace'] = namespace;
  if (backend.ca === undefined) {
    delete provider['ca'];
    provider['sslEnabled'] = false;
  } else Object.assign(provider, { ca: backend.ca, sslEnabled: true });
}

type Settings = Record<string, Record<string, unknown> | undefined>;

/** The provider settings of the sample's DynamicSecrets. */
function providersOf(objects: SampleObject[]): Array<{ name: string; settings: Settings }> {
  return objects
    .filter((obj) => obj.kind === 'DynamicSecret' && obj.spec?.['provider'])
    .map((obj) => ({ name: obj.metadata.name, settings: obj.spec?.['provider'] as Settings }));
}

function pointAtPostgresAndFill(objects: SampleObject[], postgres: PostgresServer): void {
  for (const { name, settings } of providersOf(objects)) {
    const sqlDatabase = settings['sqlDatabase'];
    if (!sqlDatabase) continue;
    const ref = pointAtPostgres(sqlDatabase, postgres);
    const secret = objects.find((obj) => obj.kind === 'Secret' && obj.metadata.name === ref?.name);
    if (!secret || !ref?.key)
      throw new Error(
        `cannot point DynamicSecret ${name} at PostgreSQL: its password Secret is not in its sample`,
      );
    delete secret['data'];
    secret['stringData'] = { [ref.key]: postgres.password };
  }
}

/**
 * Rewrites the objects of the chosen DynamicSecret sample file (already localised to `namespace`)
 * for `backend`, in place: the provider points at the PostgreSQL (and the Secret holding its admin
 * password gets the server's) or at the cluster.
 */
export function pointSampleAt(
  objects: SampleObject[],
  backend: DynamicSecretBackend,
  namespace: string,
): void {
  if (backend.provider === 'sqlDatabase') return pointAtPostgresAndFill(objects, backend.postgres);
  for (const { settings } of providersOf(objects)) {
    const kubernetes = settings['kubernetes'];
    if (kubernetes) pointAtCluster(kubernetes, backend, namespace);
  }
}
