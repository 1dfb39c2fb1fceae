/**
 * Project event subscriptions for the kinds that push to or read from secret folders
 * (SecretBatch, WorkloadSecret). One hub per operator (`OperatorServices`) and kind: the kind's adapter registers
 * its resources in it and its `startBackground` starts it, both through `projectEventHub`.
 */
import type { ManagedObject } from '../../managed/external-client.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { ProjectEventHub, type HubOptions } from './hub.ts';

export {
  ProjectEventHub,
  defaultHubTiming,
  type Hit,
  type HubOptions,
  type HubTiming,
  type Interest,
} from './hub.ts';
export type { EventStreamState } from './outcome.ts';
export type { EventScope } from './registrations.ts';

const hubs = new WeakMap<OperatorServices, Map<string, ProjectEventHub>>();

/** The hubs created so far for this operator, one per kind. */
export function projectEventHubs(services: OperatorServices): readonly ProjectEventHub[] {
  return [...(hubs.get(services)?.values() ?? [])];
}

/**
 * The hub of `kind` for this operator, created on first use (`extra` applies only then: e.g. a
 * `wake` that debounces the resources a change concerns, or `folderGone` for folder checks).
 */
export function projectEventHub(
  services: OperatorServices,
  kind: string,
  extra: Pick<HubOptions, 'wake' | 'folderGone' | 'timing'> = {},
): ProjectEventHub {
  let byKind = hubs.get(services);
  if (!byKind) {
    byKind = new Map();
    hubs.set(services, byKind);
  }
  const existing = byKind.get(kind);
  if (existing) return existing;
  const reader = services.reader<ManagedObject<unknown>>(kind);
  const hub = new ProjectEventHub({
    enqueue: (requests) => services.enqueue(kind, requests),
    connectionFor: (obj) => services.connectionFor(obj),
    exists: async (request, uid) => {
      const obj = await reader.get(request);
      return obj !== undefined && (uid === undefined || obj.metadata.uid === uid);
    },
    log: services.log.child({ kind }),
    ...extra,
  });
  byKind.set(kind, hub);
  return hub;
}
