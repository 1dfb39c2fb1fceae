/**
 * `OperatorServices` (what every kind's adapter gets) and the richer `DirectServices` of the
 * direct kinds, built over the operator's informers and Kubernetes clients.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { kindRegistry } from '../controllers/registry.ts';
import type { Logger } from 'pino';
import type { RequestInfo } from '../client/index.ts';
import { cacheReader, type ObjectReader } from '../managed/kube-objects.ts';
import { clusterIdentity } from '../runtime/cluster-identity.ts';
import type { Controller } from '../runtime/controller.ts';
import type { KubeObject } from '../runtime/informer.ts';
import { plainCoreApi, plainCustomObjectsApi, type KubeCoreApi } from '../runtime/kube-clients.ts';
import { kubeRequest } from '../runtime/kube-request.ts';
import { createSecretWriter } from '../runtime/secret-writer.ts';
import { cachedSecretWriter } from './cached-secret-writer.ts';
import { connectionKinds, loginIdentityKind } from '../managed/connections/kinds.ts';
import {
  ConnectionResolver,
  type ConnectionKindName,
  type ConnectionObject,
  type PayloadVersions,
} from '../managed/connections/resolver.ts';
import type { DirectServices } from '../managed/direct/kind.ts';
import type { OperatorInformers } from './informers.ts';
import { protectedIdentities } from './protected-identities.ts';
import { serviceAccountTokens } from './service-account-tokens.ts';
import { apiConfigMapSource, apiSecretSource, versionedGet } from './secret-cache.ts';

/** The reads that `payloadVersions` makes. */
type ReadApi = Pick<KubeCoreApi, 'readNamespacedSecret' | 'readNamespacedConfigMap'>;

export interface ServicesOptions {
  readonly kubeConfig: KubeConfig;
  readonly informers: OperatorInformers;
  /** Controllers by kind name; filled in by the assembly after the services exist. */
  readonly controllers: ReadonlyMap<string, Controller>;
  /** Watched namespaces; empty means all. */
  readonly namespaces: readonly string[];
  readonly log: Logger;
  readonly onRequest?: (info: RequestInfo) => void;
  readonly defaultPollIntervalMs: number;
  readonly waitRequeueMs: number;
  readonly now: () => Date;
  /** Grace period before a replaced connection client is closed. */
  readonly clientCloseDelayMs?: number;
  /** The operator's own namespace: a Connection there may log in with the operator's projected token. */
  readonly operatorNamespace?: string;
  /** The only directory projected token files are read from (`--projected-token-dir`). */
  readonly projectedTokenDir: string;
}

const unwatchedMemoMs = 10_000;

/**
 * resourceVersions of Secrets and ConfigMaps: from the caches for watched namespaces; by GET
 * (remembered for a few seconds) for others, e.g. a cluster-scoped connection's Secret in the
 * operator's namespace while `--namespaces` lists only tenants.
 */
function payloadVersions(options: ServicesOptions, api: ReadApi): PayloadVersions {
  const watched = (ns: string) => options.namespaces.length === 0 || options.namespaces.includes(ns);
  const memo = new Map<string, { version: string | undefined; at: number }>();
  async function lookup(kind: 'secret' | 'configMap', namespace: string, name: string) {
    const informer = kind === 'secret' ? options.informers.secrets : options.informers.configMaps;
    if (watched(namespace)) return informer.get(namespace, name)?.metadata?.resourceVersion;
    const key = `${kind}/${namespace}/${name}`;
    const hit = memo.get(key);
    if (hit && Date.now() - hit.at < unwatchedMemoMs) return hit.version;
    let version: string | undefined;
    try {
      const obj =
        kind === 'secret'
          ? await api.readNamespacedSecret({ namespace, name })
          : await api.readNamespacedConfigMap({ namespace, name });
      version = obj.metadata?.resourceVersion;
    } catch {
      version = undefined; // Missing or unreadable: the build reports it with a clear message.
    }
    memo.set(key, { version, at: Date.now() });
    return version;
  }
  return {
    secret: (namespace, name) => lookup('secret', namespace, name),
    configMap: (namespace, name) => lookup('configMap', namespace, name),
  };
}

/** Builds the services shared by every kind. */
export function createServices(options: ServicesOptions): DirectServices {
  const core = plainCoreApi(options.kubeConfig);
  const { informers } = options;
  const get = versionedGet(options.kubeConfig);
  const secrets = apiSecretSource(
    get,
    (ns, name) => informers.secrets.get(ns, name)?.metadata?.resourceVersion,
    informers.secretValues,
  );
  const configMaps = apiConfigMapSource(
    get,
    (ns, name) => informers.configMaps.get(ns, name)?.metadata?.resourceVersion,
  );
  const kindReader = (kind: string): ObjectReader<KubeObject> => {
    const informer = informers.kinds.get(kind);
    if (!informer) throw new Error(`cannot read ${kind}: no such kind`);
    return cacheReader(informer);
  };
  const protectedSources = kindRegistry.flatMap(({ definition, protectsIdentity }) =>
    protectsIdentity ? [{ ...protectsIdentity, objects: kindInformer(options, definition.kind) }] : [],
  );
  const connections = new ConnectionResolver({
    readers: connectionReaders(options),
    ...identityReader(options),
    namespaceLabels: (ns) => informers.namespaces.get(undefined, ns)?.metadata?.labels,
    namespaceTerminating: (ns) =>
      Boolean(informers.namespaces.get(undefined, ns)?.metadata?.deletionTimestamp),
    versions: payloadVersions(options, core),
    sources: {
      secrets,
      configMaps,
      serviceAccountTokens: serviceAccountTokens(options.kubeConfig, options.projectedTokenDir),
      ...(options.operatorNamespace ? { operatorNamespace: options.operatorNamespace } : {}),
    },
    log: options.log.child({ component: 'connections' }),
    waitRequeueMs: options.waitRequeueMs,
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
    ...(options.clientCloseDelayMs === undefined ? {} : { closeDelayMs: options.clientCloseDelayMs }),
  });
  return {
    async connectionFor(obj) {
      const resolved = await connections.connectionFor(obj);
      return { ...resolved, protectedIdentities: protectedIdentities(protectedSources) };
    },
    reader: <T extends KubeObject>(kind: string) => kindReader(kind) as ObjectReader<T>,
    secrets,
    configMaps,
    cluster: clusterIdentity(options.kubeConfig),
    enqueue(kind, requests) {
      const controller = options.controllers.get(kind);
      if (!controller) throw new Error(`cannot enqueue ${kind}: no controller for this kind`);
      for (const request of requests) controller.enqueue(request);
    },
    log: options.log,
    now: options.now,
    connections,
    secretWriter: cachedSecretWriter(createSecretWriter({ api: core }), informers.secrets),
    customObjects: plainCustomObjectsApi(options.kubeConfig),
    core,
    defaultPollIntervalMs: options.defaultPollIntervalMs,
    kubeRequest: (req) => kubeRequest(options.kubeConfig, req),
    cachedPayload: (kind, namespace, name) =>
      (kind === 'Secret' ? informers.secrets : informers.configMaps).get(namespace, name),
  };
}

function kindInformer(options: ServicesOptions, kind: string) {
  const informer = options.informers.kinds.get(kind);
  if (!informer) throw new Error(`cannot resolve connections: no informer for ${kind}`);
  return informer;
}

/** A cache reader of each kind a `connectionRef` can name. */
function connectionReaders(
  options: ServicesOptions,
): Record<ConnectionKindName, ObjectReader<ConnectionObject>> {
  const entries = connectionKinds.map((kind) => [kind, cacheReader(kindInformer(options, kind))] as const);
  return Object.fromEntries(entries) as Record<ConnectionKindName, ObjectReader<ConnectionObject>>;
}

/** The reader of the objects logins name by `identityRef`, when that kind is watched. */
function identityReader(options: ServicesOptions) {
  const informer = options.informers.kinds.get(loginIdentityKind);
  return informer ? { identities: cacheReader(informer) } : {};
}
