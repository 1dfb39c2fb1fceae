/**
 * The production composition of the operator on a `Manager`: informers for every kind, Secrets,
 * ConfigMaps and Namespaces; one controller per kind (managed kinds on the generic managed
 * reconciler, direct kinds on the direct reconciler, as each kind's registration says); the
 * watches that feed them (`watches.ts`); and the services every adapter uses (`services.ts`).
 */
import type { z } from 'zod';
import type { KindController, OperatorServices } from '../controllers/kind-controller.ts';
import { projectEventHubs } from '../controllers/project-events/index.ts';
import type { ManagedSpecFields } from '../managed/external-client.ts';
import { isConnectionKind } from '../managed/connections/kinds.ts';
import { cacheReader, customObjectPatcher } from '../managed/kube-objects.ts';
import { createManagedReconciler } from '../managed/reconciler.ts';
import type { Controller } from '../runtime/controller.ts';
import { ignoreStatusAndBookkeeping } from '../runtime/event-sources.ts';
import type { EventRecorder } from '../runtime/events.ts';
import { operatorEvents } from './event-policy.ts';
import type { Manager } from '../runtime/manager.ts';
import type { Reconciler } from '../runtime/reconcile.ts';
import { connectionDependents, watchConnectionDependents } from './direct-dependents.ts';
import type { DirectKindController, DirectServices } from '../managed/direct/kind.ts';
import { createDirectReconciler } from '../managed/direct/reconciler.ts';
import { createInformers, resourceOf, type OperatorInformers } from './informers.ts';
import { createServices } from './services.ts';
import { watchDependencies, watchNamespaceLabels, watchOwnSources, type WatchedKind } from './watches.ts';

export interface AssembleOptions {
  readonly manager: Manager;
  /** Kinds on the managed reconciler (from the kind registry, `src/controllers/registry.ts`). */
  readonly kinds: readonly KindController[];
  /** Kinds on the direct reconciler (from the same registry). */
  readonly directKinds: readonly DirectKindController[];
  /** Watched namespaces; empty means all. */
  readonly namespaces: readonly string[];
  readonly defaultPollIntervalMs: number;
  readonly waitRequeueMs: number;
  readonly now: () => Date;
  /** `reportingComponent` of events (default `coffer`). */
  readonly eventComponent?: string;
  readonly clientCloseDelayMs?: number;
  /** The operator's own namespace (where a Connection may use the operator's projected token). */
  readonly operatorNamespace?: string;
  /** The only directory projected token files are read from (`--projected-token-dir`). */
  readonly projectedTokenDir: string;
}

/** The assembled operator, before `manager.run`. */
export interface AssembledOperator {
  readonly services: DirectServices;
  readonly informers: OperatorInformers;
  /** Starts every kind's `startBackground`; they stop when `signal` aborts. */
  startBackground(signal: AbortSignal): void;
  /** Resolves when every event recorded so far was written (events are written in the background). */
  flushEvents(): Promise<void>;
  /** Writes the events still queued (bounded wait), closes the connection clients (after the manager stopped). */
  close(): Promise<void>;
}

interface Wiring {
  readonly options: AssembleOptions;
  readonly informers: OperatorInformers;
  readonly services: DirectServices;
  readonly events: EventRecorder;
  readonly controllers: Map<string, Controller>;
  /** The managed kinds, filled in after the direct kinds are registered. */
  readonly managed: WatchedKind[];
}

function informerFor(wiring: Wiring, kind: string) {
  const informer = wiring.informers.kinds.get(kind);
  if (!informer) throw new Error(`cannot register ${kind}: it is not a coffer.dev kind`);
  return informer;
}

function addController(
  wiring: Wiring,
  kind: WatchedKind['definition'],
  reconciler: Reconciler,
  bookkeeping: readonly string[] = [],
): Controller {
  if (wiring.controllers.has(kind.kind)) throw new Error(`cannot register ${kind.kind} twice`);
  const informer = informerFor(wiring, kind.kind);
  const controller = wiring.options.manager
    .controller({ name: kind.singular, kind: kind.kind, reconciler })
    .watches(informer, undefined, ignoreStatusAndBookkeeping(bookkeeping));
  wiring.controllers.set(kind.kind, controller);
  return controller;
}

function addManagedKind(wiring: Wiring, kind: KindController): WatchedKind {
  const { definition } = kind;
  const { options, services } = wiring;
  const informer = informerFor(wiring, definition.kind);
  const reconciler = createManagedReconciler({
    schema: definition.spec as z.ZodType<ManagedSpecFields>,
    adapter: kind.createAdapter(services),
    reader: cacheReader(informer),
    patcher: customObjectPatcher(options.manager.kubeConfig, resourceOf(definition)),
    events: wiring.events,
    secrets: services.secretWriter,
    defaultDeletionPolicy: definition.defaultDeletionPolicy ?? 'Orphan',
    defaultPollIntervalMs: options.defaultPollIntervalMs,
    waitRequeueMs: options.waitRequeueMs,
    now: options.now,
  });
  const controller = addController(wiring, definition, reconciler);
  return {
    definition,
    informer,
    controller,
    usesConnection: true,
    ...(kind.referencedSecrets ? { referencedSecrets: kind.referencedSecrets.bind(kind) } : {}),
    ...(kind.holdsSecretValues ? { holdsSecretValues: true } : {}),
    ...(kind.referencedConfigMaps ? { referencedConfigMaps: kind.referencedConfigMaps.bind(kind) } : {}),
    ...(kind.dependencies ? { dependencies: kind.dependencies.bind(kind) } : {}),
    ...(kind.announces ? { announces: kind.announces.bind(kind) } : {}),
  };
}

/** The dependents lookup of a kind held by its dependents (the connection kinds). */
function dependentsOf(wiring: Wiring, kind: DirectKindController) {
  const name = kind.definition.kind;
  if (!kind.heldByDependents) return undefined;
  if (!isConnectionKind(name))
    throw new Error(`cannot register ${name}: only connection kinds can be held by dependents`);
  return connectionDependents(name, () => wiring.managed);
}

function addDirectKind(wiring: Wiring, kind: DirectKindController): WatchedKind {
  const { definition } = kind;
  const informer = informerFor(wiring, definition.kind);
  const dependents = dependentsOf(wiring, kind);
  const reconciler = createDirectReconciler({
    schema: definition.spec,
    sync: kind.createSync(wiring.services),
    reader: cacheReader(informer),
    patcher: customObjectPatcher(wiring.options.manager.kubeConfig, resourceOf(definition)),
    events: wiring.events,
    pollIntervalMs: wiring.options.defaultPollIntervalMs,
    ...(dependents ? { dependents } : {}),
    now: wiring.options.now,
  });
  const controller = addController(wiring, definition, reconciler, kind.bookkeepingAnnotations);
  return {
    definition,
    informer,
    controller,
    usesConnection: kind.usesConnection ?? false,
    ...(kind.referencedSecrets ? { referencedSecrets: kind.referencedSecrets.bind(kind) } : {}),
    ...(kind.referencedConfigMaps ? { referencedConfigMaps: kind.referencedConfigMaps.bind(kind) } : {}),
    ...(kind.dependencies ? { dependencies: kind.dependencies.bind(kind) } : {}),
    ...(kind.ownedKinds ? { ownedKinds: kind.ownedKinds } : {}),
  };
}

/** How long `close` waits for queued events to be written. */
const eventFlushTimeoutMs = 5_000;

/** When the first project event hub next checks folders on its own (ms since the epoch), if planned. */
function nextEventHubWork(services: OperatorServices): number | undefined {
  const times = projectEventHubs(services).flatMap((hub) => hub.nextScheduledAt() ?? []);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** Registers everything on `options.manager`; call before `manager.run`. */
export function assembleOperator(options: AssembleOptions): AssembledOperator {
  const { manager } = options;
  const informers = createInformers(manager);
  const controllers = new Map<string, Controller>();
  const services = createServices({
    kubeConfig: manager.kubeConfig,
    informers,
    controllers,
    namespaces: options.namespaces,
    log: manager.log,
    onRequest: manager.metrics.serviceRequest,
    defaultPollIntervalMs: options.defaultPollIntervalMs,
    waitRequeueMs: options.waitRequeueMs,
    now: options.now,
    ...(options.clientCloseDelayMs === undefined ? {} : { clientCloseDelayMs: options.clientCloseDelayMs }),
    ...(options.operatorNamespace ? { operatorNamespace: options.operatorNamespace } : {}),
    projectedTokenDir: options.projectedTokenDir,
  });
  manager.metrics.scheduledWork('project-events', () => nextEventHubWork(services));
  manager.metrics.cachedSecretValues(() => informers.secretValues.size);
  // Reconciles do not wait for their events to be stored (see event-queue.ts).
  const events = operatorEvents({
    kubeConfig: manager.kubeConfig,
    component: options.eventComponent ?? 'coffer',
    log: manager.log,
    onDropped: manager.metrics.eventDropped,
    onSkipped: manager.metrics.eventSkipped,
    kindRoutineEvents: [...options.kinds, ...options.directKinds].flatMap((kind) => kind.routineEvents ?? []),
  });
  const wiring: Wiring = { options, informers, services, events, controllers, managed: [] };
  const direct = options.directKinds.map((kind) => addDirectKind(wiring, kind));
  wiring.managed.push(...options.kinds.map((kind) => addManagedKind(wiring, kind)));
  const watched = [...direct, ...wiring.managed];
  for (const kind of watched) watchOwnSources(kind, informers);
  watchDependencies(watched, informers);
  watchNamespaceLabels(watched, informers);
  watchConnectionDependents(wiring.managed, informers, controllers);
  return {
    services,
    informers,
    startBackground(signal) {
      for (const kind of options.kinds) kind.startBackground?.(services, signal);
      for (const kind of options.directKinds) kind.startBackground?.(services, signal);
    },
    flushEvents: () => events.flush(),
    async close() {
      await Promise.race([
        events.flush(),
        new Promise((resolve) => setTimeout(resolve, eventFlushTimeoutMs).unref()),
      ]);
      await services.connections.close();
    },
  };
}
