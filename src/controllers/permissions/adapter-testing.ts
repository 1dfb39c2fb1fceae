/**
 * Test support for the AdditionalPrivilege, ProjectRole and ProjectTemplate adapter tests
 * (imported only by `*.test.ts`): fake `OperatorServices` over a real service client (a devserver
 * on loopback), in-memory readers, managed objects and adapter contexts.
 */
import { pino } from 'pino';
import type { ServiceClient } from '../../client/index.ts';
import type {
  BoundContext,
  ExternalContext,
  ManagedObject,
  ManagedStatus,
  ResolveContext,
} from '../../managed/external-client.ts';
import type { KubeObject } from '../../runtime/object-meta.ts';
import type { OperatorServices } from '../kind-controller.ts';

/** A silent logger. */
export const silentLog = pino({ level: 'silent' });

/** What the fake services read; tests change it as they go. */
export interface FakeWorld {
  /** Coffer objects by kind. */
  objects: Record<string, KubeObject[]>;
  now: Date;
}

/** Fake services over `client`, reading the mutable `world`. */
export function fakeServices(client: ServiceClient, world: FakeWorld): OperatorServices {
  return {
    connectionFor: () => Promise.resolve({ client, key: 'Connection/ns/test' }),
    reader: <T extends KubeObject>(kind: string) => ({
      get: (request: { namespace?: string; name: string }) =>
        Promise.resolve(
          (world.objects[kind] ?? []).find(
            (o) => o.metadata?.name === request.name && o.metadata.namespace === request.namespace,
          ) as T | undefined,
        ),
    }),
    secrets: { read: () => Promise.resolve(undefined) },
    configMaps: { read: () => Promise.resolve(undefined) },
    enqueue: () => undefined,
    log: silentLog,
    now: () => world.now,
  };
}

/** A managed object named `name` in namespace `ns` with a parsed `spec`. */
export function managed<Spec>(
  kind: string,
  name: string,
  spec: Spec,
  extra: { status?: ManagedStatus; generation?: number; clusterScoped?: boolean } = {},
): ManagedObject<Spec> {
  return {
    apiVersion: 'coffer.dev/v1alpha1',
    kind,
    metadata: {
      name,
      ...(extra.clusterScoped ? {} : { namespace: 'ns' }),
      uid: `uid-${name}`,
      generation: extra.generation ?? 1,
      annotations: {},
    },
    spec,
    ...(extra.status ? { status: extra.status } : {}),
  };
}

/** An adapter context; with `externalId` it is also a `BoundContext`. */
export function context<Refs>(references: Refs, externalId?: string): ExternalContext<Refs> {
  return {
    references,
    signal: new AbortController().signal,
    log: silentLog,
    ...(externalId ? { externalId } : {}),
  };
}

/** A bound context (update, delete). */
export function bound<Refs>(references: Refs, externalId: string): BoundContext<Refs> {
  return { references, signal: new AbortController().signal, log: silentLog, externalId };
}

/** A resolve context. */
export function resolving(deleting = false): ResolveContext {
  return { deleting, waitRequeueMs: 10_000, signal: new AbortController().signal, log: silentLog };
}

/** A Coffer object in namespace `ns` that is Ready with `status.id` (and more status fields). */
export function readyObject(
  kind: string,
  name: string,
  id: string,
  more: { spec?: unknown; status?: Record<string, unknown>; ready?: boolean } = {},
): KubeObject {
  const ready = more.ready ?? true;
  return {
    apiVersion: 'coffer.dev/v1alpha1',
    kind,
    metadata: { name, namespace: 'ns', generation: 1 },
    spec: more.spec ?? {},
    status: {
      id,
      ...more.status,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', reason: 'Available', message: '' }],
    },
  } as KubeObject;
}
