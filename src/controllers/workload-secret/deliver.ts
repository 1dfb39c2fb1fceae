/**
 * One delivery: read every source with the resource's connection, merge them in order, apply the
 * template, check the result (keys, values, size) and write the targets that differ. Thrown
 * failures carry their reason (`SourceNotFound`, `TemplateError`, `InvalidKey`, `InvalidValue`,
 * `TooLarge`, `InvalidSpec` for a Secret type's missing keys, `TargetConflict`, or a service error
 * classified by the reconciler); nothing is written unless every source was read, the content is
 * valid and every target may be written (`targets.ts`), so a target is never emptied or
 * half-updated by a failure, and one target is never written while another is refused.
 */
import type { WorkloadSecretSpec } from '../../api/v1alpha1/index.ts';
import type { ServiceClient } from '../../client/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import type { OperatorServices } from '../../managed/kind-services.ts';
import { checkContent, contentHash } from './content.ts';
import { mergeSources } from './merge.ts';
import { readSource, type SourceRead, type SourceReport } from './sources.ts';
import type { TargetSpec } from './target-objects.ts';
import type { targetApis } from './targets.ts';
import { deliverTargets, type TargetCache, type TargetResult } from './targets.ts';
import { renderContent } from './template/render.ts';
import { leaseReads, type LeaseInput } from './leases/content.ts';

export interface DeliveryContext {
  readonly client: ServiceClient;
  readonly services: Pick<OperatorServices, 'reader' | 'log'>;
  readonly apis: ReturnType<typeof targetApis>;
  /** The informer cache's view of the targets (no request for a target it shows up to date). */
  readonly targetCache?: TargetCache;
  readonly signal: AbortSignal;
  /** Reads the sources (`live-delivery.ts`: what is still good is not read again); default all. */
  readonly readSources?: (readOne: (index: number) => Promise<SourceRead>) => Promise<SourceRead[]>;
  /** The lease round of this delivery when the resource has `dynamicSecret` sources (`leases/`). */
  readonly leases?: LeaseInput;
}

/** What a delivery did (no values). */
export interface Delivery {
  /** `status.contentHash`: HMAC of the delivered content (`content.ts`). */
  readonly contentHash: string;
  readonly secretCount: number;
  readonly sources: readonly SourceReport[];
  readonly collisions: readonly string[];
  /** Each target and what was done to it. */
  readonly targets: readonly TargetResult[];
  /** True when a target was created or updated. */
  readonly changed: boolean;
  /** `status.inputsHash` with `dynamicSecret` sources. */
  readonly inputsHash?: string;
}

/** A `dynamicSecret` source is read from its lease (`leases/content.ts`), not from its folder. */
function leaseSourceRead(obj: ManagedObject<WorkloadSecretSpec>, index: number): SourceRead {
  const source = obj.spec.sources[index];
  const report = {
    project: '',
    environment: source?.environment ?? '',
    secretPath: source?.secretPath ?? '/',
  };
  return { pairs: [], report: { ...report, count: 0 } };
}

/** The targets `spec` asks for, with `data`. */
export function targetSpecs(
  obj: ManagedObject<WorkloadSecretSpec>,
  data: Readonly<Record<string, string>>,
): TargetSpec[] {
  const { target } = obj.spec;
  const namespace = obj.metadata.namespace ?? '';
  const common = { namespace, data, policy: target.creationPolicy, adoptExisting: target.adoptExisting };
  const specs: TargetSpec[] = [];
  if (target.secret)
    specs.push({
      ...common,
      kind: 'Secret',
      name: target.secret.name ?? obj.metadata.name,
      labels: target.secret.labels ?? {},
      annotations: target.secret.annotations ?? {},
      type: target.secret.type,
      immutable: target.secret.immutable,
    });
  if (target.configMap)
    specs.push({
      ...common,
      kind: 'ConfigMap',
      name: target.configMap.name ?? obj.metadata.name,
      labels: target.configMap.labels ?? {},
      annotations: target.configMap.annotations ?? {},
    });
  return specs;
}

/** Reads, merges, renders, checks and writes (see the module comment). */
export async function deliver(
  obj: ManagedObject<WorkloadSecretSpec>,
  ctx: DeliveryContext,
): Promise<Delivery> {
  const readOne = async (index: number) =>
    obj.spec.sources[index]?.dynamicSecret
      ? leaseSourceRead(obj, index)
      : readSource(obj, obj.spec.sources[index] ?? obj.spec.sources[0]!, ctx);
  let reads = ctx.readSources
    ? await ctx.readSources(readOne)
    : await Promise.all(obj.spec.sources.map((_, index) => readOne(index)));
  const leased = ctx.leases && (await leaseReads(obj, reads, ctx.leases, ctx.apis));
  if (leased) reads = leased.reads;
  const merged = mergeSources(reads.map((r) => r.pairs));
  const data = leased?.reuse ?? (await renderContent(merged.data, obj.spec.template, obj.metadata));
  checkContent(data);
  const targets = await deliverTargets(ctx.apis, targetSpecs(obj, data), obj, ctx.targetCache);
  return {
    contentHash: contentHash(data, obj.metadata.uid ?? ''),
    secretCount: Object.keys(data).length,
    sources: reads.map((r) => r.report),
    collisions: merged.collisions,
    targets,
    changed: targets.some((t) => t.result !== 'unchanged'),
    ...(leased ? { inputsHash: leased.inputsHash } : {}),
  };
}
