/**
 * The contract between the operator assembly (`src/operator/`) and one kind's controller
 * (`src/controllers/<kind>/`). A kind controller is data plus an adapter factory: the assembly
 * creates the informers, the work queue, the generic managed reconciler and the watches from it.
 *
 * A kind's folder exports its controller inside its registration (`registration.ts`); the fields
 * that follow from the registration (`dependencies`, `announces`, `routineEvents`) are filled in
 * from it by `index.ts`. Adding a kind: `npm run new-kind <Name>`.
 */
import type { KindDefinition } from '../api/v1alpha1/kind.ts';
import type { AdapterStatus, ManagedAdapter, ManagedObject } from '../managed/external-client.ts';
import type { NamedRef, OperatorServices } from '../managed/kind-services.ts';

export type {
  ConfigMapSource,
  NamedRef,
  OperatorServices,
  ResolvedConnection,
  SecretSource,
} from '../managed/kind-services.ts';

/** Everything the operator assembly needs to run one kind. */
// `any` defaults let heterogeneous kinds share one registry array; each kind's own module is typed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface KindController<Spec = any, Refs = any, Status extends AdapterStatus = AdapterStatus> {
  readonly definition: KindDefinition;
  /** Builds the adapter once at start-up. */
  createAdapter(services: OperatorServices): ManagedAdapter<Spec, Refs, Status>;
  /**
   * Secrets this object reads (input values, credentials). A change to one of them re-reconciles
   * the object within seconds.
   */
  referencedSecrets?(obj: ManagedObject<Spec>): readonly NamedRef[];
  /**
   * Whether the operator holds the values of `referencedSecrets` in memory, fed by its Secret
   * watch, for a kind that reads them on every reconcile: no request per read, and memory only
   * for the Secrets this kind's objects reference.
   */
  readonly holdsSecretValues?: boolean;
  /** ConfigMaps this object reads. */
  referencedConfigMaps?(obj: ManagedObject<Spec>): readonly NamedRef[];
  /**
   * Other Coffer objects this object depends on, as `{kind, name, namespace?}`: when one of them
   * changes (e.g. becomes Ready), this object is reconciled again at once instead of waiting.
   */
  dependencies?(obj: ManagedObject<Spec>): readonly (NamedRef & { readonly kind: string })[];
  /**
   * Coffer objects whose dependents are reconciled when this object becomes Ready, stops being
   * Ready, appears or goes (as if the named object itself had changed; `announcedFrom`).
   */
  announces?(obj: ManagedObject<Spec>): readonly (NamedRef & { readonly kind: string })[];
  /** Normal event reasons recorded under the routine budget (from the registration's `routineEvents`). */
  readonly routineEvents?: readonly string[];
  /** Runs beside the controller (e.g. the project-event subscriptions); stopped on shutdown. */
  startBackground?(services: OperatorServices, signal: AbortSignal): void;
}
