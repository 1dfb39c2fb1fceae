/**
 * DynamicSecret adapter: observe / create / update / delete of the service object, and its natural-key
 * lookup (by `spec.name`) for crash recovery. Not written yet: every call ends the reconcile
 * with `Synced=False` reason `AdapterNotWritten`.
 */
import type { DynamicSecretSpec } from '../../api/v1alpha1/dynamic-secret.ts';
import type { ExternalClient, ManagedAdapter } from '../../managed/external-client.ts';
import { TerminalError } from '../../runtime/errors.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { dynamicSecretReasons } from './reasons.ts';

function notWritten(): never {
  throw new TerminalError(
    dynamicSecretReasons.names.AdapterNotWritten,
    'cannot reconcile DynamicSecret: its adapter is not written yet',
  );
}

const client: ExternalClient<DynamicSecretSpec, undefined> = {
  observe: () => Promise.resolve(notWritten()),
  create: () => Promise.resolve(notWritten()),
  update: () => Promise.resolve(notWritten()),
  delete: () => Promise.resolve(notWritten()),
  findByNaturalKey: () => Promise.resolve(notWritten()),
};

/** The DynamicSecret adapter on the operator's services. */
export function dynamicSecretAdapter(
  services: OperatorServices,
): ManagedAdapter<DynamicSecretSpec, undefined> {
  return {
    async connect(obj) {
      await services.connectionFor(obj);
      return client;
    },
  };
}
