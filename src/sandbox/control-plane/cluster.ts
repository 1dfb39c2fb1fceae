/**
 * Access to a running control plane from any process that knows its connection facts (the test
 * global setup passes them to test workers; the sandbox keeps them): admin KubeConfig, CRD
 * installation, server-side apply, namespaces, and KubeConfigs for restricted users and service
 * accounts (RBAC tests).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  loadYaml,
  PatchStrategy,
  type KubernetesObject,
  type User,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { PooledKubeConfig } from '../../runtime/kube-config.ts';
import { waitFor } from '../wait-for.ts';
import { issueClientCertificate } from './certs.ts';

/** Serialisable facts about a running control plane (what the global setup provides to tests). */
export interface ControlPlaneInfo {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** Admin kubeconfig (user `coffer-admin`, group `system:masters`). */
  readonly kubeconfigPath: string;
  /** The CA that the API server trusts for client certificates and that signed its serving cert. */
  readonly caCertPath: string;
  readonly caKeyPath: string;
  /**
   * etcd's client URL (`http://127.0.0.1:<port>`, no TLS): for tests that must store an object the
   * API server would refuse (one stored before its CRD changed).
   */
  readonly etcdServer?: string;
  /**
   * What the binaries report, e.g. `{ kubeApiserver: 'v1.37.1', etcd: 'v3.7.3' }`;
   * `kubeControllerManager` only when it runs.
   */
  readonly versions: {
    readonly kubeApiserver: string;
    readonly etcd: string;
    readonly kubeControllerManager?: string;
  };
}

/** Default field manager of {@link KubeCluster} for server-side apply. */
export const defaultFieldManager = 'coffer';

const base64 = (text: string): string => Buffer.from(text).toString('base64');

/** HTTP status of a client-node ApiException (or undefined for other errors). */
export function statusCodeOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Converts an object in wire format (as the API server and YAML files spell it) into the shape of
 * client-node's typed models. KubernetesObjectApi serialises built-in kinds through those models,
 * which silently drop wire-only names such as `x-kubernetes-validations`, `default` or `enum` in a
 * CRD schema unless the object went through the matching deserialisation first.
 */
export function toClientModel<T extends KubernetesObject>(wire: T): T {
  return loadYaml<T>(JSON.stringify(wire));
}

/** The CRD documents of a YAML file, or the object itself; both in wire format. */
function loadCrds(source: string | KubernetesObject): KubernetesObject[] {
  const docs: unknown[] =
    typeof source === 'string'
      ? parseAllDocuments(readFileSync(source, 'utf8')).map((doc) => doc.toJS() as unknown)
      : [source];
  return (docs as Array<KubernetesObject | null>).filter(
    (doc): doc is KubernetesObject => doc?.kind === 'CustomResourceDefinition',
  );
}

function isEstablished(crd: V1CustomResourceDefinition): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
}

/**
 * Server-side applies `objects` (wire format, as in YAML: converted with {@link toClientModel}
 * first, so CRD schema keys such as `x-kubernetes-validations`, `default` or `enum` survive) as
 * `fieldManager`, forcing conflicts, all at once. `resourceVersion` and `managedFields` are
 * dropped. Returns the objects as stored, in the order given.
 */
export function applyObjects(
  kc: KubeConfig,
  objects: readonly KubernetesObject[],
  fieldManager: string,
): Promise<KubernetesObject[]> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  return Promise.all(
    objects.map(async (object) => {
      const { resourceVersion: _rv, managedFields: _mf, ...metadata } = object.metadata ?? {};
      const body = toClientModel({ ...object, metadata });
      try {
        return await api.patch(body, undefined, undefined, fieldManager, true, PatchStrategy.ServerSideApply);
      } catch (error) {
        const what = `${object.kind ?? '?'} ${metadata.name ?? '?'}`;
        throw new Error(`cannot apply ${what}: ${kubeMessage(error)}`, { cause: error });
      }
    }),
  );
}

/** The message of a Kubernetes API error (its Status body), else the error's own message. */
export function kubeMessage(error: unknown): string {
  const body = (error as { body?: unknown } | null)?.body;
  try {
    const parsed: unknown = typeof body === 'string' ? JSON.parse(body) : body;
    const message = (parsed as { message?: unknown } | null)?.message;
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON: fall back to the error's message.
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Server-side applies CustomResourceDefinitions (wire format) and resolves once each is
 * `Established` and its served versions answer a list.
 */
export async function installCrds(
  kc: KubeConfig,
  crds: readonly KubernetesObject[],
  fieldManager: string,
): Promise<V1CustomResourceDefinition[]> {
  if (crds.length === 0) throw new Error('cannot install CRDs: no CustomResourceDefinition given');
  await applyObjects(kc, crds, fieldManager);
  const extensions = kc.makeApiClient(ApiextensionsV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  return Promise.all(
    crds.map(async (crd) => {
      const name = crd.metadata?.name ?? '';
      const ready = await waitFor(
        async () => {
          const current = await extensions.readCustomResourceDefinition({ name });
          return isEstablished(current) ? current : undefined;
        },
        { timeoutMs: 30_000, message: `CRD ${name} to be Established` },
      );
      const { group, names } = ready.spec;
      for (const version of ready.spec.versions.filter((v) => v.served)) {
        await waitFor(
          () => custom.listClusterCustomObject({ group, version: version.name, plural: names.plural }),
          {
            timeoutMs: 30_000,
            message: `${names.plural}.${group}/${version.name} to be served`,
          },
        );
      }
      return ready;
    }),
  );
}

/** A handle on a running control plane, usable from any process that has its {@link ControlPlaneInfo}. */
export class KubeCluster {
  readonly info: ControlPlaneInfo;
  /** Field manager of server-side applies made through this handle. */
  readonly fieldManager: string;

  constructor(info: ControlPlaneInfo, fieldManager: string = defaultFieldManager) {
    this.info = info;
    this.fieldManager = fieldManager;
  }

  get server(): string {
    return this.info.server;
  }

  get kubeconfigPath(): string {
    return this.info.kubeconfigPath;
  }

  /** A fresh admin KubeConfig (cluster-admin through `system:masters`). */
  kubeConfig(): KubeConfig {
    const kc = new PooledKubeConfig();
    kc.loadFromFile(this.info.kubeconfigPath);
    return kc;
  }

  /** A KubeConfig for the same cluster authenticating as `user`. */
  kubeConfigFor(user: User): KubeConfig {
    const kc = new PooledKubeConfig();
    const caData = base64(readFileSync(this.info.caCertPath, 'utf8'));
    kc.loadFromOptions({
      clusters: [{ name: 'coffer-local', server: this.info.server, caData, skipTLSVerify: false }],
      users: [user],
      contexts: [{ name: 'coffer-local', cluster: 'coffer-local', user: user.name }],
      currentContext: 'coffer-local',
    });
    return kc;
  }

  /**
   * Server-side applies the CustomResourceDefinitions (wire-format objects, or paths of YAML
   * files whose CRD documents are used) and resolves once each is `Established` and its resources
   * answer a list, so custom resources can be created right away (see {@link installCrds}).
   */
  installCRDs(sources: ReadonlyArray<string | KubernetesObject>): Promise<V1CustomResourceDefinition[]> {
    return installCrds(this.kubeConfig(), sources.flatMap(loadCrds), this.fieldManager);
  }

  /** Creates a namespace (default: a random `test-xxxxxxxx` name) and returns its name. */
  async createNamespace(name?: string): Promise<string> {
    const namespace = name ?? `test-${randomBytes(4).toString('hex')}`;
    await this.kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: namespace } } });
    return namespace;
  }

  /** A KubeConfig authenticating as `user` in `groups` with a client certificate signed by the cluster CA. */
  async clientForUser(user: string, groups: readonly string[] = []): Promise<KubeConfig> {
    const ca = {
      certPem: readFileSync(this.info.caCertPath, 'utf8'),
      keyPem: readFileSync(this.info.caKeyPath, 'utf8'),
    };
    const pair = await issueClientCertificate(ca, user, groups);
    return this.kubeConfigFor({ name: user, certData: base64(pair.certPem), keyData: base64(pair.keyPem) });
  }

  /**
   * A KubeConfig authenticating as the service account `namespace/name` (created when missing)
   * with a token from the TokenRequest API valid `expirationSeconds` (default one hour).
   */
  async clientForServiceAccount(
    namespace: string,
    name: string,
    expirationSeconds = 3_600,
  ): Promise<KubeConfig> {
    const core = this.kubeConfig().makeApiClient(CoreV1Api);
    try {
      await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
    } catch (error) {
      if (statusCodeOf(error) !== 409)
        throw new Error(`cannot create service account ${namespace}/${name}`, { cause: error });
    }
    const request = await core.createNamespacedServiceAccountToken({
      name,
      namespace,
      body: { spec: { audiences: [], expirationSeconds } },
    });
    const token = request.status?.token;
    if (!token)
      throw new Error(`cannot request a token for service account ${namespace}/${name}: empty status`);
    return this.kubeConfigFor({ name: `system:serviceaccount:${namespace}:${name}`, token });
  }
}
