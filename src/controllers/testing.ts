/**
 * Test support for the kind adapter tests (imported only by `*.test.ts`): fake
 * `OperatorServices` over a real service client (usually a devserver on loopback), in-memory
 * readers and Secrets, managed objects and adapter contexts.
 */
import { pino } from 'pino';
import type { ServiceClient } from '../client/index.ts';
import type {
  BoundContext,
  ExternalContext,
  ManagedObject,
  ManagedStatus,
  ResolveContext,
} from '../managed/external-client.ts';
import type { ClusterIdentity } from '../runtime/cluster-identity.ts';
import type { KubeObject } from '../runtime/object-meta.ts';
import type { OperatorServices } from './kind-controller.ts';

/** A silent logger. */
export const silentLog = pino({ level: 'silent' });

/** Inputs of {@link fakeServices}; every field can be changed by the test afterwards. */
export interface FakeWorld {
  /** The connection's organization id, when the kind needs one. */
  organizationId?: string;
  /** Coffer objects by kind. */
  objects: Record<string, KubeObject[]>;
  /** Secrets by `namespace/name`, decoded. */
  secrets: Record<string, Record<string, string>>;
  /** ConfigMaps by `namespace/name`; default none. */
  configMaps?: Record<string, Record<string, string>>;
  now: Date;
  /** The cluster the operator would run in; default: one that answers nothing. */
  cluster?: ClusterIdentity;
}

const noCluster: ClusterIdentity = {
  apiServer: () => {
    throw new Error('no cluster in this test');
  },
  serviceAccountIssuer: () => Promise.reject(new Error('no cluster in this test')),
};

/** Fake services over `client`, reading the mutable `world`. */
export function fakeServices(client: ServiceClient, world: FakeWorld): OperatorServices {
  return {
    connectionFor: () =>
      Promise.resolve({
        client,
        key: 'Connection/ns/test',
        ...(world.organizationId ? { organizationId: world.organizationId } : {}),
      }),
    reader: <T extends KubeObject>(kind: string) => ({
      get: (request: { namespace?: string; name: string }) =>
        Promise.resolve(
          (world.objects[kind] ?? []).find(
            (o) => o.metadata?.name === request.name && o.metadata.namespace === request.namespace,
          ) as T | undefined,
        ),
    }),
    secrets: { read: (ns, name) => Promise.resolve(world.secrets[`${ns}/${name}`]) },
    configMaps: { read: (ns, name) => Promise.resolve(world.configMaps?.[`${ns}/${name}`]) },
    get cluster() {
      return world.cluster ?? noCluster;
    },
    enqueue: () => undefined,
    log: silentLog,
    now: () => world.now,
  };
}

/** Optional parts of {@link managed}. */
export interface ManagedExtra {
  status?: ManagedStatus;
  /** Default 1. */
  generation?: number;
  annotations?: Record<string, string>;
  /** No namespace (default: namespace `ns`). */
  clusterScoped?: boolean;
}

/** A managed object of `kind` named `name` (in namespace `ns` unless cluster-scoped) with a parsed `spec`. */
export function managed<Spec>(
  kind: string,
  name: string,
  spec: Spec,
  extra: ManagedExtra = {},
): ManagedObject<Spec> {
  return {
    apiVersion: 'coffer.dev/v1alpha1',
    kind,
    metadata: {
      name,
      ...(extra.clusterScoped ? {} : { namespace: 'ns' }),
      uid: `uid-${name}`,
      generation: extra.generation ?? 1,
      annotations: extra.annotations ?? {},
    },
    spec,
    ...(extra.status ? { status: extra.status } : {}),
  };
}

/** `annotate` of the adapter contexts below: accepts every write and stores nothing. */
export const acceptAnnotations: ExternalContext<unknown>['annotate'] = () => Promise.resolve();

/** An adapter context; with `externalId` it is also a `BoundContext`. */
export function context<Refs>(references: Refs, externalId?: string): ExternalContext<Refs> {
  return {
    references,
    signal: new AbortController().signal,
    log: silentLog,
    annotate: acceptAnnotations,
    ...(externalId ? { externalId } : {}),
  };
}

/** A bound context (update, delete). */
export function bound<Refs>(references: Refs, externalId: string): BoundContext<Refs> {
  return {
    references,
    signal: new AbortController().signal,
    log: silentLog,
    annotate: acceptAnnotations,
    externalId,
  };
}

/** A resolve context. */
export function resolving(deleting = false): ResolveContext {
  return { deleting, waitRequeueMs: 10_000, signal: new AbortController().signal, log: silentLog };
}

/** Optional parts of {@link readyObject}. */
export interface ReadyObjectOptions {
  spec?: unknown;
  /** More status fields besides `id`. */
  status?: Record<string, unknown>;
  /** The Ready condition's status (default true). */
  ready?: boolean;
  /** No namespace (default: namespace `ns`). */
  clusterScoped?: boolean;
}

/** A referenced Coffer object with `status.id` and a Ready condition (True unless `ready: false`). */
export function readyObject(
  kind: string,
  name: string,
  id: string,
  options: ReadyObjectOptions = {},
): KubeObject {
  const { spec = {}, clusterScoped = false, ready = true } = options;
  return {
    apiVersion: 'coffer.dev/v1alpha1',
    kind,
    metadata: { name, ...(clusterScoped ? {} : { namespace: 'ns' }), generation: 1 },
    spec,
    status: {
      id,
      ...options.status,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', reason: 'Available', message: '' }],
    },
  } as KubeObject;
}
