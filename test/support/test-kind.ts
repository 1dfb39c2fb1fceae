// A small managed kind for testing the generic reconciler without a real service: the CRD
// `widgets.test.coffer.dev` (status subresource), its zod schema, an in-memory "service" holding
// widgets, and an adapter that talks to it. Used by the reconciler's unit tests (with in-memory
// Kubernetes fakes) and by the integration tests (with the real API server).
import { NetworkError, serviceErrorFor, type ServiceError } from '../../src/client/index.ts';
import { z } from 'zod';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ExternalClient, ManagedAdapter, ManagedObject } from '../../src/managed/external-client.ts';
import type { ObjectReader, ResourceKind } from '../../src/managed/kube-objects.ts';
import { resolveReference, type ReferencedObject } from '../../src/managed/references.ts';
import { testReason } from '../../src/runtime/reasons.ts';

export const widgetResource: ResourceKind = {
  group: 'test.coffer.dev',
  version: 'v1',
  plural: 'widgets',
  kind: 'Widget',
  namespaced: true,
};

export const widgetApiVersion = `${widgetResource.group}/${widgetResource.version}`;

/** Spec of a Widget. `name` is the natural key in the fake service. */
export const widgetSpecSchema = z.object({
  name: z.string().min(1).max(40),
  size: z.int().min(0).max(100).default(1),
  parentRef: z.object({ name: z.string().min(1) }).optional(),
  outputSecretName: z.string().min(1).optional(),
  expired: z.boolean().default(false),
  /** Asks for an earlier look (the `requeueAfterMs` hook). */
  checkAfterMs: z.int().min(0).optional(),
  deletionPolicy: z.enum(['Delete', 'Orphan']).default('Delete'),
  managementPolicy: z.enum(['Default', 'ObserveOnly']).default('Default'),
  pollInterval: z.string().optional(),
});
export type WidgetSpec = z.output<typeof widgetSpecSchema>;

export interface WidgetRefs {
  readonly parentId?: string;
}

export interface WidgetStatus extends Record<string, unknown> {
  readonly size: number;
  readonly parentId?: string;
}

const str = { type: 'string' };
const int = { type: 'integer' };
const bool = { type: 'boolean' };
const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties });

/**
 * The CRD. Its schema only declares types (the zod schema is what the reconciler validates, so
 * bounds are left out on purpose) and uses no `x-kubernetes-*` extensions: client-node's typed
 * serializer drops keys spelled that way.
 */
export const widgetCrd: KubernetesObject & Record<string, unknown> = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${widgetResource.plural}.${widgetResource.group}` },
  spec: {
    group: widgetResource.group,
    scope: 'Namespaced',
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    versions: [
      {
        name: widgetResource.version,
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: obj({
            spec: obj({
              name: str,
              size: int,
              parentRef: obj({ name: str }),
              outputSecretName: str,
              expired: bool,
              checkAfterMs: int,
              deletionPolicy: str,
              managementPolicy: str,
              pollInterval: str,
            }),
            status: obj({
              id: str,
              createdId: str,
              createPending: str,
              observedGeneration: int,
              lastHandledReconcileAt: str,
              size: int,
              parentId: str,
              conditions: {
                type: 'array',
                items: obj({
                  type: str,
                  status: str,
                  reason: str,
                  message: str,
                  lastTransitionTime: str,
                  observedGeneration: int,
                }),
              },
            }),
          }),
        },
      },
    ],
  },
};

/** A Widget manifest. */
export function widget(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
  annotations?: Record<string, string>,
): ManagedObject<Record<string, unknown>> {
  return {
    apiVersion: widgetApiVersion,
    kind: 'Widget',
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    spec,
  };
}

/**
 * The service client's typed error for an answer of `status` (0: no answer at all), as the client
 * classifies a real one (`serviceErrorFor`), so fakes exercise the same error path.
 */
export function fakeServiceError(
  status: number,
  serviceMessage: string,
  retryAfterMs?: number,
): ServiceError {
  if (status === 0) return new NetworkError({ operation: 'widgets', status, message: serviceMessage });
  return serviceErrorFor({ operation: 'widgets', status, message: serviceMessage, retryAfterMs });
}

export interface StoredWidget {
  name: string;
  size: number;
  parentId?: string;
  deleteProtection?: boolean;
  /** RFC 3339; set by `insert` when absent (the service dates what it creates). */
  createdAt?: string;
  /** Why the widget is protected (an adapter's `protection`), if it is. */
  protectedBy?: string;
}

type Operation = 'observe' | 'create' | 'update' | 'delete' | 'find';

/** The in-memory service: widgets by id, a call log, and one-shot injected failures. */
export class FakeWidgetService {
  readonly widgets = new Map<string, StoredWidget>();
  readonly calls: string[] = [];
  /** A secret the service hands out with every widget (published into the output Secret). */
  readonly token = 'widget-token-value-3f9a';
  private readonly failures = new Map<Operation, Error[]>();
  private nextId = 1;

  /**
   * With `naturalIds`, a widget's id is `n-<name>` and creating one again replaces it (like a
   * folder of keys): the client then offers `idBeforeCreate`.
   */
  readonly naturalIds: boolean;

  constructor(naturalIds = false) {
    this.naturalIds = naturalIds;
  }

  /** The next `operation` throws `error` (queued; one per call). */
  failNext(operation: Operation, error: Error): void {
    this.failures.set(operation, [...(this.failures.get(operation) ?? []), error]);
  }

  /** Inserts a widget directly (as if made outside Kubernetes) and returns its id. */
  insert(widget: StoredWidget): string {
    const id = this.naturalIds ? `n-${widget.name}` : `w-${this.nextId++}`;
    this.widgets.set(id, { createdAt: new Date().toISOString(), ...widget });
    return id;
  }

  /** Service writes (create, update, delete) so far. */
  writes(): string[] {
    return this.calls.filter((call) => !call.startsWith('observe') && !call.startsWith('find'));
  }

  call(operation: Operation, detail: string): void {
    this.calls.push(`${operation} ${detail}`);
    const error = this.failures.get(operation)?.shift();
    if (error) throw error;
  }
}

function desired(obj: ManagedObject<WidgetSpec>, refs: WidgetRefs): StoredWidget {
  return { name: obj.spec.name, size: obj.spec.size, ...(refs.parentId ? { parentId: refs.parentId } : {}) };
}

function statusOf(stored: StoredWidget): WidgetStatus {
  return { size: stored.size, ...(stored.parentId ? { parentId: stored.parentId } : {}) };
}

function outputs(obj: ManagedObject<WidgetSpec>, id: string, service: FakeWidgetService) {
  const name = obj.spec.outputSecretName;
  return name ? [{ name, data: { id, token: service.token } }] : undefined;
}

/** The ExternalClient of the test kind. */
export function widgetClient(
  service: FakeWidgetService,
): ExternalClient<WidgetSpec, WidgetRefs, WidgetStatus> {
  return {
    async observe(obj, ctx) {
      await Promise.resolve();
      service.call('observe', ctx.externalId ?? '-');
      // Without an id, by name (natural key), as the real adapters do.
      const id = ctx.externalId ?? [...service.widgets].find(([, w]) => w.name === obj.spec.name)?.[0];
      const stored = id ? service.widgets.get(id) : undefined;
      if (!stored || !id) return { exists: false };
      const want = desired(obj, ctx.references);
      const upToDate = stored.size === want.size && stored.name === want.name;
      return {
        exists: true,
        upToDate,
        externalId: id,
        status: statusOf(stored),
        secretData: outputs(obj, id, service),
        ...(upToDate ? {} : { diff: `size ${stored.size} -> ${want.size}` }),
      };
    },
    async create(obj, ctx) {
      await Promise.resolve();
      service.call('create', obj.spec.name);
      const want = desired(obj, ctx.references);
      const id = service.insert(want);
      return { externalId: id, status: statusOf(want), secretData: outputs(obj, id, service) };
    },
    async update(obj, ctx) {
      await Promise.resolve();
      service.call('update', ctx.externalId);
      const want = desired(obj, ctx.references);
      service.widgets.set(ctx.externalId, { ...service.widgets.get(ctx.externalId), ...want });
      return { status: statusOf(want) };
    },
    async delete(_obj, ctx) {
      await Promise.resolve();
      service.call('delete', ctx.externalId);
      const stored = service.widgets.get(ctx.externalId);
      if (!stored) throw fakeServiceError(404, 'Widget not found');
      if (stored.deleteProtection) throw fakeServiceError(400, 'Widget has delete protection enabled');
      service.widgets.delete(ctx.externalId);
    },
    async findByNaturalKey(obj) {
      await Promise.resolve();
      service.call('find', obj.spec.name);
      return [...service.widgets]
        .filter(([, w]) => w.name === obj.spec.name)
        .map(([id, w]) => ({ id, ...(w.createdAt ? { createdAt: w.createdAt } : {}) }));
    },
    requeueAfterMs(obj) {
      return obj.spec.expired ? undefined : obj.spec.checkAfterMs;
    },
    protection(obj, ctx) {
      const id = ctx.externalId;
      const reason = id === undefined ? undefined : service.widgets.get(id)?.protectedBy;
      return id !== undefined && reason !== undefined ? { reason, id, creator: obj } : undefined;
    },
    ...(service.naturalIds
      ? { idBeforeCreate: (obj: ManagedObject<WidgetSpec>) => `n-${obj.spec.name}` }
      : {}),
    readyCheck(obj) {
      return obj.spec.expired
        ? { reason: testReason('Expired'), message: 'the widget has expired' }
        : undefined;
    },
  };
}

/** The adapter: `parentRef` names another Widget whose external id becomes `parentId`. */
export function widgetAdapter(
  service: FakeWidgetService,
  widgets: ObjectReader<ReferencedObject>,
): ManagedAdapter<WidgetSpec, WidgetRefs, WidgetStatus> {
  return {
    async resolveReferences(obj, context) {
      const ref = obj.spec.parentRef;
      if (!ref) return {};
      const fallbackId = typeof obj.status?.parentId === 'string' ? obj.status.parentId : undefined;
      const parent = await resolveReference({
        reader: widgets,
        kind: 'Widget',
        from: obj,
        ref,
        context,
        ...(fallbackId ? { fallbackId } : {}),
      });
      return { parentId: parent.externalId };
    },
    connect: () => Promise.resolve(widgetClient(service)),
  };
}
