/**
 * What the managed-kind conformance suite (test/integration/conformance.test.ts) needs to know
 * about one kind: a minimal valid spec, the objects it depends on, and how to read, make and
 * change its object in the service. Each managed kind of the registry brings one
 * {@link KindConformance} in `test/support/conformance/kinds/<kind folder>.ts` (exported as
 * `conformance`); a case that does not apply to the kind is declared in `notApplicable`, with the
 * reason, and is not run.
 */
import type { OperatorHarness } from '../operator.ts';

/** The cases every managed kind shares. */
export const conformanceCases = [
  'create',
  'update',
  'drift',
  'observe-only',
  'adoption',
  'already-exists',
  'orphan',
  'delete',
  'abandon',
  'missing-connection',
  'connection-gone',
] as const;
export type ConformanceCase = (typeof conformanceCases)[number];

/** A coffer.dev object a kind's resources need (created and waited Ready before them). */
export interface Dependency {
  readonly kind: string;
  readonly name: string;
  /** The spec without `connectionRef` (the suite sets the kind's connection). */
  readonly spec: Record<string, unknown>;
}

/** Where one kind's cases run. */
export interface ConformanceContext {
  readonly h: OperatorHarness;
  /** The kind's own namespace (a cluster-scoped kind's dependencies live there). */
  readonly namespace: string;
  /** A Connection in `namespace`, or a ClusterConnection for a cluster-scoped kind. */
  readonly connectionRef: { readonly name: string; readonly kind?: string };
  /** `base` made unique in the service (names and slugs are shared by every kind of the file). */
  unique(base: string): string;
  /** The service id (`status.id`) of a dependency, once it is Ready. */
  idOf(kind: string, name: string): Promise<string>;
}

/** A service object as the client returns it. */
export type ServiceObject = Record<string, unknown>;

export interface KindConformance {
  readonly kind: string;
  /** Dependencies every resource of the kind shares, created once, in order. */
  readonly shared?: (ctx: ConformanceContext) => readonly Dependency[];
  /** Anything else the kind's namespace needs before its first resource (e.g. a credential Secret). */
  readonly prepare?: (ctx: ConformanceContext) => Promise<void>;
  /** Dependencies of the resource `name` alone (e.g. the Identity an IdentityAuth attaches to). */
  readonly own?: (ctx: ConformanceContext, name: string) => readonly Dependency[];
  /** A minimal valid spec for the resource `name`, without `connectionRef`. */
  readonly spec: (ctx: ConformanceContext, name: string) => Record<string, unknown>;
  /** The service object the resource `name` manages (id `id`); rejects with status 404 when gone. */
  readonly read: (ctx: ConformanceContext, name: string, id: string) => Promise<ServiceObject>;
  /**
   * Makes, outside Coffer, the service object `spec(ctx, name)` describes (same natural key), but
   * NOT in line with the spec; resolves with its id. Its dependencies exist already.
   */
  readonly createExternal: (ctx: ConformanceContext, name: string) => Promise<string>;
  /** Whether the service object is in line with `spec(ctx, name)`. */
  readonly inLine: (object: ServiceObject) => boolean;
  /** Changes the service object behind Coffer's back so that `inLine` is false. */
  readonly drift: (ctx: ConformanceContext, name: string, id: string) => Promise<void>;
  /** A spec change (merge patch of `spec`) and how the service object shows it. */
  readonly update: {
    readonly spec: Record<string, unknown>;
    readonly applied: (object: ServiceObject) => boolean;
  };
  /**
   * Why the kind never creates its service object (its resources adopt one), or undefined when it
   * does. Cases that need a Ready resource then adopt one made by `createExternal`.
   */
  readonly createdOutside?: string;
  /** The cases that do not apply to the kind, each with the reason. */
  readonly notApplicable?: Partial<Record<ConformanceCase, string>>;
}
