// The generic managed reconciler for the Widget test kind wired to a REAL API server (the run's
// control plane): reads with GETs, writes with JSON/merge patches, real Secrets and Events. The
// external service is the in-memory FakeWidgetService.
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type CoreV1Event,
  type KubeConfig,
} from '@kubernetes/client-node';
import { pino } from 'pino';
import type { ManagedObject } from '../../src/managed/external-client.ts';
import {
  customObjectPatcher,
  customObjectReader,
  type ObjectReader,
} from '../../src/managed/kube-objects.ts';
import { createManagedReconciler } from '../../src/managed/reconciler.ts';
import { ANNOTATION_CREATE_PENDING } from '../../src/runtime/object-meta.ts';
import { getCondition, type Condition } from '../../src/runtime/conditions.ts';
import { ReconcileError } from '../../src/runtime/errors.ts';
import { createEventRecorder, kubeEventsApi } from '../../src/runtime/events.ts';
import type { Reconciler, Result } from '../../src/runtime/reconcile.ts';
import { createSecretWriter } from '../../src/runtime/secret-writer.ts';
import { FakeWidgetService, widget, widgetAdapter, widgetResource, widgetSpecSchema } from './test-kind.ts';

export type Widget = ManagedObject<unknown>;

/** The end of a reconcile: a result, or a classified error. */
export interface Outcome {
  readonly result?: Result;
  readonly error?: ReconcileError;
}

/** Reconciler, fake service and API helpers for Widgets in one namespace. */
export class KubeWidgets {
  readonly service = new FakeWidgetService();
  readonly custom: CustomObjectsApi;
  readonly core: CoreV1Api;
  readonly reader: ObjectReader<Widget>;
  readonly reconciler: Reconciler;
  readonly namespace: string;
  /** Reads straight from the API server (never stale). */
  private readonly direct: ObjectReader<Widget>;
  /** When set, the next read returns this object instead of asking the API server (a stale cache). */
  staleRead: Widget | undefined;
  private readonly context = { signal: new AbortController().signal, log: pino({ level: 'silent' }) };

  constructor(kc: KubeConfig, namespace: string) {
    this.namespace = namespace;
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.core = kc.makeApiClient(CoreV1Api);
    const direct = customObjectReader<Widget>(kc, widgetResource);
    this.direct = direct;
    this.reader = {
      get: (request) => {
        const stale = this.staleRead;
        this.staleRead = undefined;
        return stale ? Promise.resolve(stale) : direct.get(request);
      },
    };
    this.reconciler = createManagedReconciler({
      schema: widgetSpecSchema,
      adapter: widgetAdapter(this.service, direct),
      reader: this.reader,
      patcher: customObjectPatcher<Widget>(kc, widgetResource),
      events: createEventRecorder({ api: kubeEventsApi(kc), component: 'coffer-test' }),
      secrets: createSecretWriter({ api: this.core }),
      defaultDeletionPolicy: 'Delete',
      waitRequeueMs: 1_000,
      persistRetryDelaysMs: [50],
    });
  }

  private coordinates(name: string) {
    const { group, version, plural } = widgetResource;
    return { group, version, plural, namespace: this.namespace, name };
  }

  async create(
    name: string,
    spec: Record<string, unknown>,
    annotations?: Record<string, string>,
  ): Promise<Widget> {
    const { group, version, plural } = widgetResource;
    const body = widget(this.namespace, name, spec, annotations);
    return (await this.custom.createNamespacedCustomObject({
      group,
      version,
      plural,
      namespace: this.namespace,
      body,
    })) as Widget;
  }

  /**
   * Creates a Widget as an interrupted create leaves it: the operator's create-pending mark
   * `markedAt` in the annotation and, through the status subresource, in `status.createPending`.
   */
  async createInterrupted(name: string, spec: Record<string, unknown>, markedAt: string): Promise<Widget> {
    await this.create(name, spec, { [ANNOTATION_CREATE_PENDING]: markedAt });
    return (await this.custom.patchNamespacedCustomObjectStatus(
      { ...this.coordinates(name), body: { status: { createPending: markedAt } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Widget;
  }

  async get(name: string): Promise<Widget | undefined> {
    return this.direct.get({ namespace: this.namespace, name });
  }

  async condition(name: string, type: string): Promise<Condition | undefined> {
    return getCondition((await this.get(name))?.status?.conditions, type);
  }

  /** Merge-patches the main resource (spec, metadata), as `kubectl patch --type merge` would. */
  async patch(name: string, body: object): Promise<Widget> {
    return (await this.custom.patchNamespacedCustomObject(
      { ...this.coordinates(name), body },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Widget;
  }

  async delete(name: string): Promise<void> {
    await this.custom.deleteNamespacedCustomObject(this.coordinates(name));
  }

  /** One reconcile. */
  async reconcile(name: string): Promise<Outcome> {
    try {
      return { result: await this.reconciler({ namespace: this.namespace, name }, this.context) };
    } catch (error) {
      if (error instanceof ReconcileError) return { error };
      throw error;
    }
  }

  /**
   * Reconciles until the outcome is not a write conflict (the controller would retry those at
   * once) and a further reconcile changes nothing in Kubernetes; returns the last outcome.
   */
  async settle(name: string, maxRounds = 10): Promise<Outcome> {
    let last: Outcome = {};
    let previousVersion: string | undefined;
    for (let round = 0; round < maxRounds; round++) {
      last = await this.reconcile(name);
      if (last.error?.errorClass === 'conflict') continue;
      const version = (await this.get(name))?.metadata.resourceVersion;
      if (version === previousVersion) return last;
      previousVersion = version;
    }
    return last;
  }

  /** Events about a Widget, oldest first. */
  async events(name: string): Promise<CoreV1Event[]> {
    const list = await this.core.listNamespacedEvent({
      namespace: this.namespace,
      fieldSelector: `involvedObject.name=${name}`,
    });
    return list.items;
  }
}
