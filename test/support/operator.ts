// The whole operator in-process against the run's control plane and a fresh devserver, for the
// kinds' integration tests. `startOperatorHarness()`:
// 1. installs every generated CRD (crds/*.yaml) and creates a namespace (plus extra ones on request);
// 2. starts a devserver on loopback, bootstraps it through the service API, and keeps an
//    authenticated ServiceClient (`service`) for drift "behind Kubernetes' back";
// 3. starts the operator (`startOperator`) watching those namespaces, with short requeues;
// 4. creates the Secret `coffer-admin-token` and the Connection `coffer` (token auth) in the
//    namespace and waits until it is Ready (`connection: false` skips this).
// Every operator log line is captured in `logs()` so tests can assert no secret leaked.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type CoreV1Event,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { apiVersion, findKind, group, projectKind, version } from '../../src/api/v1alpha1/index.ts';
import { createServiceClient, staticToken, type ServiceClient } from '../../src/client/index.ts';
import type { KindController } from '../../src/controllers/kind-controller.ts';
import type { ExternalClient } from '../../src/managed/external-client.ts';
import { startDevServer, type DevServer, type DevServerOptions } from '../../src/devserver/server.ts';
import { startOperator, type RunningOperator, type StartOperatorOptions } from '../../src/operator/start.ts';
import type { Condition } from '../../src/runtime/conditions.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { ANNOTATION_RECONCILE_REQUESTED_AT } from '../../src/runtime/object-meta.ts';
import { clusterFromInjected, statusCodeOf, waitFor } from './kube.ts';

/** A coffer.dev object as read back from the API server. */
export interface CofferObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    generation: number;
    resourceVersion: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
  spec: Record<string, unknown>;
  status?: { conditions?: Condition[]; observedGeneration?: number; id?: string; [field: string]: unknown };
}

/** Where an object lives: default the harness namespace (ignored for cluster-scoped kinds). */
export interface At {
  readonly namespace?: string;
}

export interface OperatorHarnessOptions {
  /** Extra namespaces to create and watch, with their labels (ClusterConnection tests). */
  readonly extraNamespaces?: readonly { readonly labels?: Record<string, string> }[];
  /** Create the token Secret and the Connection `coffer` and wait for it (default true). */
  readonly connection?: boolean;
  readonly devserver?: DevServerOptions;
  /** Overrides of the operator options (the harness sets kubeConfig, log and namespaces). */
  readonly operator?: Partial<StartOperatorOptions>;
  /** Operator log level (default `debug`, so the secret-hygiene checks see the most). */
  readonly logLevel?: 'debug' | 'info' | 'warn';
}

/** The bootstrap result of the harness's devserver. */
export interface AdminCredentials {
  readonly token: string;
  readonly organizationId: string;
  readonly identityId: string;
  readonly userId: string;
}

/** Name of the Connection (and of the token Secret's prefix) the harness creates. */
export const HARNESS_CONNECTION = 'coffer';
export const HARNESS_TOKEN_SECRET = 'coffer-admin-token';

const crdDir = join(import.meta.dirname, '..', '..', 'crds');
const mergePatch = () => setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function coordinates(kind: string) {
  const definition = findKind(kind);
  if (!definition) throw new Error(`unknown kind ${kind}`);
  return { group, version, plural: definition.plural, namespaced: definition.scope === 'Namespaced' };
}

/** A condition to wait for. */
export interface ExpectedCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
}

export interface WaitOptions extends At {
  readonly timeoutMs?: number;
  /** Require the condition's observedGeneration to equal metadata.generation (default true). */
  readonly current?: boolean;
}

export class OperatorHarness {
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  /** The main namespace (first of `namespaces`). */
  readonly namespace: string;
  readonly namespaces: readonly string[];
  readonly devserver: DevServer;
  /** Authenticated (bootstrap token) client of the devserver. */
  readonly service: ServiceClient;
  readonly admin: AdminCredentials;
  readonly operator: RunningOperator;
  private readonly logLines: string[];
  private readonly clusterScoped: { kind: string; name: string }[] = [];

  constructor(parts: {
    kubeConfig: KubeConfig;
    namespaces: readonly string[];
    devserver: DevServer;
    service: ServiceClient;
    admin: AdminCredentials;
    operator: RunningOperator;
    logLines: string[];
  }) {
    this.kubeConfig = parts.kubeConfig;
    this.core = parts.kubeConfig.makeApiClient(CoreV1Api);
    this.custom = parts.kubeConfig.makeApiClient(CustomObjectsApi);
    this.namespaces = parts.namespaces;
    this.namespace = parts.namespaces[0] ?? '';
    this.devserver = parts.devserver;
    this.service = parts.service;
    this.admin = parts.admin;
    this.operator = parts.operator;
    this.logLines = parts.logLines;
  }

  /** The devserver's base URL. */
  get url(): string {
    return this.devserver.url;
  }

  /** Everything the operator logged so far (JSON lines). */
  logs(): string {
    return this.logLines.join('');
  }

  /** Creates a coffer.dev object (`spec` as given; metadata extras optional). */
  async create(
    kind: string,
    name: string,
    spec: Record<string, unknown>,
    options: At & { annotations?: Record<string, string>; labels?: Record<string, string> } = {},
  ): Promise<CofferObject> {
    const at = coordinates(kind);
    const metadata = {
      name,
      ...(at.namespaced ? { namespace: options.namespace ?? this.namespace } : {}),
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(options.labels ? { labels: options.labels } : {}),
    };
    const body = { apiVersion, kind, metadata, spec };
    if (!at.namespaced) {
      this.clusterScoped.push({ kind, name });
      return (await this.custom.createClusterCustomObject({ ...at, body })) as CofferObject;
    }
    const namespace = metadata.namespace ?? this.namespace;
    return (await this.custom.createNamespacedCustomObject({ ...at, namespace, body })) as CofferObject;
  }

  /**
   * Creates a Project `name` through the harness Connection — display name `displayName`, a
   * random slug, one environment `dev`, deletionPolicy Delete — and resolves with its service id
   * once it is Ready.
   */
  async createDevProject(name: string, displayName: string): Promise<string> {
    await this.create('Project', name, {
      connectionRef: { name: HARNESS_CONNECTION },
      name: displayName,
      slug: `${name}-${randomBytes(3).toString('hex')}`,
      environments: [{ name: 'Development', slug: 'dev' }],
      deletionPolicy: 'Delete',
    });
    return (await this.waitForReady('Project', name)).status?.id ?? '';
  }

  /** The object, or undefined when it does not exist. */
  async get(kind: string, name: string, options: At = {}): Promise<CofferObject | undefined> {
    const at = coordinates(kind);
    try {
      const obj: unknown = at.namespaced
        ? await this.custom.getNamespacedCustomObject({
            ...at,
            namespace: options.namespace ?? this.namespace,
            name,
          })
        : await this.custom.getClusterCustomObject({ ...at, name });
      return obj as CofferObject;
    } catch (error) {
      if (statusCodeOf(error) === 404) return undefined;
      throw error;
    }
  }

  /** Merge-patches the object (e.g. `{ spec: { description: 'x' } }`). */
  async patch(
    kind: string,
    name: string,
    patch: Record<string, unknown>,
    options: At = {},
  ): Promise<CofferObject> {
    const at = coordinates(kind);
    const result: unknown = at.namespaced
      ? await this.custom.patchNamespacedCustomObject(
          { ...at, namespace: options.namespace ?? this.namespace, name, body: patch },
          mergePatch(),
        )
      : await this.custom.patchClusterCustomObject({ ...at, name, body: patch }, mergePatch());
    return result as CofferObject;
  }

  /** Sets `coffer.dev/reconcile-requested-at` to a new value: the operator reconciles at once. */
  requestReconcile(kind: string, name: string, options: At = {}): Promise<CofferObject> {
    const value = `${new Date().toISOString()}-${randomBytes(2).toString('hex')}`;
    return this.patch(
      kind,
      name,
      { metadata: { annotations: { [ANNOTATION_RECONCILE_REQUESTED_AT]: value } } },
      options,
    );
  }

  /** Deletes the object (a missing one is fine); does not wait. */
  async delete(kind: string, name: string, options: At = {}): Promise<void> {
    const at = coordinates(kind);
    try {
      if (at.namespaced)
        await this.custom.deleteNamespacedCustomObject({
          ...at,
          namespace: options.namespace ?? this.namespace,
          name,
        });
      else await this.custom.deleteClusterCustomObject({ ...at, name });
    } catch (error) {
      if (statusCodeOf(error) !== 404) throw error;
    }
  }

  /** Resolves once the object is gone (finalizers done). */
  async waitForDeletion(kind: string, name: string, options: WaitOptions = {}): Promise<void> {
    await waitFor(async () => (await this.get(kind, name, options)) === undefined, {
      timeoutMs: options.timeoutMs ?? 30_000,
      message: `${kind} ${name} to be deleted`,
    });
  }

  /**
   * Waits until condition `expected.type` of the object has `expected.status` (and
   * `expected.reason`, when given), computed for the current generation; returns the object.
   */
  async waitForCondition(
    kind: string,
    name: string,
    expected: ExpectedCondition,
    options: WaitOptions = {},
  ): Promise<CofferObject> {
    const { type, status, reason } = expected;
    let last: Condition | undefined;
    try {
      return await waitFor(
        async () => {
          const obj = await this.get(kind, name, options);
          last = obj?.status?.conditions?.find((c) => c.type === type);
          if (!obj || !last || last.status !== status) return undefined;
          if (reason !== undefined && last.reason !== reason) return undefined;
          if (options.current !== false && last.observedGeneration !== obj.metadata.generation)
            return undefined;
          return obj;
        },
        { timeoutMs: options.timeoutMs ?? 30_000, intervalMs: 200 },
      );
    } catch {
      const seen = last ? `${last.status} ${last.reason}: ${last.message}` : 'no such condition';
      const want = `${type}=${status}${reason ? ` (${reason})` : ''}`;
      throw new Error(`timed out waiting for ${kind} ${name} ${want}; last: ${seen}`);
    }
  }

  /** `waitForCondition(kind, name, { type: 'Ready', status: 'True' })`. */
  waitForReady(kind: string, name: string, options: WaitOptions = {}): Promise<CofferObject> {
    return this.waitForCondition(kind, name, { type: 'Ready', status: 'True' }, options);
  }

  /** Creates (or replaces) an Opaque Secret with plain-text values. */
  async createSecret(name: string, data: Record<string, string>, options: At = {}): Promise<void> {
    const namespace = options.namespace ?? this.namespace;
    const body = { metadata: { name, namespace }, stringData: data };
    try {
      await this.core.createNamespacedSecret({ namespace, body });
    } catch (error) {
      if (statusCodeOf(error) !== 409) throw error;
      await this.core.replaceNamespacedSecret({ namespace, name, body });
    }
  }

  /** A Secret's decoded values, or undefined when it does not exist. */
  async readSecret(name: string, options: At = {}): Promise<Record<string, string> | undefined> {
    try {
      const secret = await this.core.readNamespacedSecret({
        namespace: options.namespace ?? this.namespace,
        name,
      });
      return Object.fromEntries(
        Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
      );
    } catch (error) {
      if (statusCodeOf(error) === 404) return undefined;
      throw error;
    }
  }

  /** Events recorded about the object named `name` (after the operator wrote those it queued). */
  async events(name: string, options: At = {}): Promise<CoreV1Event[]> {
    await this.operator.flushEvents();
    const namespace = options.namespace ?? this.namespace;
    const list = await this.core.listNamespacedEvent({
      namespace,
      fieldSelector: `involvedObject.name=${name}`,
    });
    return list.items;
  }

  /**
   * Waits until an event about `name` matches `predicate` and returns it. A reconcile records its
   * events after its status write and the service call before it, in the background: a test that
   * saw the service or the status change must wait for the event, not list the events once.
   */
  async waitForEvent(
    name: string,
    predicate: (event: CoreV1Event) => boolean,
    options: At & { readonly timeoutMs?: number } = {},
  ): Promise<CoreV1Event> {
    return waitFor(async () => (await this.events(name, options)).find(predicate), {
      timeoutMs: options.timeoutMs ?? 15_000,
      intervalMs: 100,
      message: `an event about ${name} matching ${predicate.toString()}`,
    });
  }

  /** Deletes cluster-scoped objects created through `create`, then stops everything. */
  async stop(): Promise<void> {
    for (const { kind, name } of this.clusterScoped) await this.delete(kind, name);
    for (const { kind, name } of this.clusterScoped) {
      await this.waitForDeletion(kind, name, { timeoutMs: 20_000 }).catch(() => undefined);
    }
    await this.operator.stop();
    await this.service.close();
    await this.devserver.close();
  }
}

async function createNamespaces(options: OperatorHarnessOptions): Promise<string[]> {
  const cluster = clusterFromInjected();
  const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
  const wanted = [{}, ...(options.extraNamespaces ?? [])] as { labels?: Record<string, string> }[];
  const names: string[] = [];
  for (const spec of wanted) {
    const name = `test-${randomBytes(4).toString('hex')}`;
    await core.createNamespace({
      body: { metadata: { name, ...(spec.labels ? { labels: spec.labels } : {}) } },
    });
    names.push(name);
  }
  return names;
}

/** Bootstraps a fresh devserver (the one-time admin bootstrap) and returns the admin's credentials. */
export async function bootstrapDevserver(url: string): Promise<AdminCredentials> {
  const anonymous = createServiceClient({ baseUrl: url });
  try {
    const result = await anonymous.admin.bootstrap({
      email: 'admin@example.com',
      password: `pw-${randomBytes(8).toString('hex')}`,
      organization: 'Coffer Tests',
    });
    return {
      token: result.identity.credentials.token,
      organizationId: result.organization.id,
      identityId: result.identity.id,
      userId: result.user.id,
    };
  } finally {
    await anonymous.close();
  }
}

/** The generated CRDs (crds/*.coffer.dev.yaml). */
export function cofferCrds(): KubernetesObject[] {
  return readdirSync(crdDir)
    .filter((file) => file.endsWith('.coffer.dev.yaml'))
    .map((file) => parse(readFileSync(join(crdDir, file), 'utf8')) as KubernetesObject);
}

function capturingLogger(level: string, lines: string[]) {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return createLogger({ level: level as 'debug', name: 'coffer', destination });
}

/** Starts the harness; see the module comment. Call `stop()` in `afterAll`. */
export async function startOperatorHarness(options: OperatorHarnessOptions = {}): Promise<OperatorHarness> {
  const cluster = clusterFromInjected();
  await cluster.installCRDs(cofferCrds());
  const namespaces = await createNamespaces(options);
  const devserver = await startDevServer({ port: 0, ...options.devserver });
  const admin = await bootstrapDevserver(devserver.url);
  const service = createServiceClient({ baseUrl: devserver.url, auth: staticToken(admin.token) });
  const logLines: string[] = [];
  const kubeConfig = cluster.kubeConfig();
  const operator = await startOperator({
    kubeConfig,
    log: capturingLogger(options.logLevel ?? 'debug', logLines),
    namespaces,
    waitRequeueMs: 1_000,
    clientCloseDelayMs: 1_000,
    ...options.operator,
  });
  const harness = new OperatorHarness({
    kubeConfig,
    namespaces,
    devserver,
    service,
    admin,
    operator,
    logLines,
  });
  await operator.ready;
  if (options.connection !== false) {
    await harness.createSecret(HARNESS_TOKEN_SECRET, { token: admin.token });
    await harness.create('Connection', HARNESS_CONNECTION, {
      url: devserver.url,
      auth: { token: { secretRef: { name: HARNESS_TOKEN_SECRET, key: 'token' } } },
    });
    await harness.waitForReady('Connection', HARNESS_CONNECTION);
  }
  return harness;
}

/**
 * A valid spec for `connectionProbeKind` objects (the Project sample's spec, so it follows the
 * Project CRD) with the given `connectionRef`.
 */
export function connectionProbeSpec(connectionRef: { kind?: string; name: string }): Record<string, unknown> {
  const sample = parse(readFileSync(join(crdDir, '..', 'config', 'samples', 'project.yaml'), 'utf8')) as {
    spec: Record<string, unknown>;
  };
  return { ...sample.spec, connectionRef };
}

/**
 * A managed kind for testing connection resolution without depending on a real kind's adapter:
 * it reuses the Project CRD (see `connectionProbeSpec`), resolves its connection through
 * `OperatorServices.connectionFor`, makes one authenticated call (list the organization's
 * identities), and reports the connection's organization as its external id. Pass it with
 * `operator: { kinds: [connectionProbeKind] }`.
 */
export const connectionProbeKind: KindController = {
  definition: projectKind,
  createAdapter: (services) => ({
    async connect(obj) {
      const connection = await services.connectionFor(obj);
      const id = connection.organizationId ?? 'unknown-organization';
      const client: ExternalClient<unknown, unknown> = {
        async observe(_obj, ctx) {
          if (!ctx.externalId) return { exists: false };
          if (connection.organizationId)
            await connection.client.identities.list(connection.organizationId, { signal: ctx.signal });
          return { exists: true, upToDate: true, externalId: id };
        },
        create: () => Promise.resolve({ externalId: id }),
        update: () => Promise.resolve({}),
        delete: () => Promise.resolve(),
        findByNaturalKey: () => Promise.resolve([]),
      };
      return client;
    },
  }),
};
