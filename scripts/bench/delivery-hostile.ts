/**
 * `npm run bench:delivery -- --hostile`: what a hostile WorkloadSecret template costs everyone
 * else. N benign templated WorkloadSecrets (10 keys each, one templated key beside the merged
 * ones) run under the operator as the chart runs it; then:
 *
 * - service edit → target Secret updated for the benign ones, p50 / p99 / max, without a hostile
 *   template, and again while hostile templates render one after another (each edit of a hostile
 *   spec renders again: nested loops, a string grown by `append`/`toJson`, by `b64enc`, a growing
 *   `capture`, an output over the cap);
 * - each hostile template's spec edit → `TemplateError` on the resource, with the limit it names;
 * - the operator's memory as the cluster counts it: working set (`working-set.ts`) and anonymous
 *   memory at the largest working set sampled every 20 ms, smaps_rollup's anonymous memory and the
 *   peak RSS (VmHWM), at rest, without and with the hostile templates, against the chart's limit.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { group, version, workloadSecretKind } from '../../src/api/v1alpha1/index.ts';
import { pidsOf } from './cpu.ts';
import { editLatencies } from './delivery-measure.ts';
import { workloadSecretSpec, type Folder } from './delivery-setup.ts';
import { createObject, forEachLimited, type At } from './operator-setup.ts';
import { memoryFiguresText, type MemoryFigures } from './working-set.ts';

/** The hostile templates, each with the limit it is expected to meet. */
export const hostileTemplates: readonly { name: string; template: string }[] = [
  {
    name: 'nested loops',
    template:
      '{% for i in (1..100000) %}{% for j in (1..100000) %}{% if K0 == j %}{% endif %}{% endfor %}{% endfor %}',
  },
  {
    name: 'append + toJson growth',
    template:
      '{% assign s = K0 %}{% for i in (1..60) %}{% assign s = s | append: s | toJson %}{% endfor %}{{ s }}',
  },
  {
    name: 'b64enc growth',
    template: '{% assign s = K0 %}{% for i in (1..60) %}{% assign s = s | b64enc %}{% endfor %}{{ s }}',
  },
  {
    name: 'growing capture',
    template: '{% capture s %}{% for i in (1..7000000) %}{{ K0 }}{% endfor %}{% endcapture %}{{ s | size }}',
  },
  {
    name: 'output over the cap',
    template:
      '{% assign s = K0 %}{% for i in (1..12) %}{% assign s = s | append: s %}{% endfor %}{% for i in (1..100) %}{{ s }}{% endfor %}',
  },
];

/** The spec of benign WorkloadSecret `w-<i>`: its keys and one templated key. */
export function templatedSpec(folder: Folder): Record<string, unknown> {
  return {
    ...workloadSecretSpec(folder, '10m'),
    template: { data: { DSN: 'postgres://{{ K1 }}:{{ K2 }}@db/{{ K3 }}' }, mergeSourceKeys: true },
  };
}

/** Creates the benign templated WorkloadSecrets `w-<i>` for `folders`. */
export function createTemplatedWorkloadSecrets(at: At, folders: readonly Folder[], concurrency: number) {
  return forEachLimited(folders.length, concurrency, (i) => {
    const folder = folders[i] as Folder;
    return createObject(at, 'WorkloadSecret', `w-${folder.index}`, templatedSpec(folder));
  });
}

/** The operator's memory figures (`working-set.ts`), its peak RSS and smaps_rollup's Anonymous, in KiB. */
interface MemorySample extends MemoryFigures {
  readonly hwmKiB: number;
  readonly rollupAnonKiB: number;
}

function sample(pid: number, figures: () => MemoryFigures): MemorySample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (text: string, name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return { ...figures(), hwmKiB: kib(status, 'VmHWM'), rollupAnonKiB: kib(rollup, 'Anonymous') };
}

/**
 * Samples the operator's memory every 20 ms (`figures`: `operatorMemory`); `stop()` gives the
 * sample of the largest working set.
 */
export function startMemoryPeak(figures: () => MemoryFigures): { stop(): MemorySample } {
  const [pid] = pidsOf('operator');
  if (pid === undefined) throw new Error('cannot sample the operator: no operator process');
  let peak = sample(pid, figures);
  const timer = setInterval(() => {
    try {
      const now = sample(pid, figures);
      if (now.workingSetKiB > peak.workingSetKiB) peak = now;
      else peak = { ...peak, hwmKiB: Math.max(peak.hwmKiB, now.hwmKiB) };
    } catch {
      // The process ended meanwhile; the peak stands.
    }
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

export function memoryText(s: MemorySample): string {
  const m = (k: number) => `${(k / 1024).toFixed(0)} MiB`;
  return `${memoryFiguresText(s)} (smaps_rollup anonymous ${m(s.rollupAnonKiB)}); peak RSS (VmHWM) ${m(s.hwmKiB)}`;
}

const mergePatch = () => setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

interface TemplateErrorSeen {
  readonly ms: number;
  readonly message: string;
}

/** Sets `template` on `name` (a new generation) and waits for its `TemplateError` of that generation. */
async function renderUntilError(at: At, name: string, template: string): Promise<TemplateErrorSeen> {
  const where = { group, version, plural: workloadSecretKind.plural, namespace: at.namespace, name };
  const start = Date.now();
  const patched = (await at.env.custom.patchNamespacedCustomObject(
    { ...where, body: { spec: { template: { data: { 'app.conf': template } } } } },
    mergePatch(),
  )) as { metadata: { generation: number } };
  for (;;) {
    const obj = (await at.env.custom.getNamespacedCustomObject(where)) as {
      status?: {
        conditions?: {
          type: string;
          status: string;
          reason: string;
          message: string;
          observedGeneration: number;
        }[];
      };
    };
    const synced = obj.status?.conditions?.find((c) => c.type === 'Synced');
    if (synced?.observedGeneration === patched.metadata.generation && synced.status === 'False')
      return { ms: Date.now() - start, message: `${synced.reason}: ${synced.message}` };
    if (Date.now() - start > 120_000) throw new Error(`${name} never reported its template error`);
    await sleep(20);
  }
}

/**
 * Renders each hostile template `rounds` times on WorkloadSecret `hostile` (a spec edit each, a
 * unique comment so no render is remembered), one after another; the time until each error.
 */
export async function renderHostile(at: At, rounds: number): Promise<Map<string, TemplateErrorSeen[]>> {
  const seen = new Map<string, TemplateErrorSeen[]>();
  let edit = 0;
  for (let round = 0; round < rounds; round += 1)
    for (const { name, template } of hostileTemplates) {
      const result = await renderUntilError(
        at,
        'hostile',
        `{% comment %}${edit++}{% endcomment %}${template}`,
      );
      seen.set(name, [...(seen.get(name) ?? []), result]);
    }
  return seen;
}

/** Edit latencies over `folders`, round robin, until `done()` (at least `min` samples). */
export async function latenciesUntil(
  at: At,
  service: Parameters<typeof editLatencies>[1],
  folders: readonly Folder[],
  options: { done: () => boolean; min: number },
): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; samples.length < options.min || !options.done(); i += 1)
    samples.push(...(await editLatencies(at, service, [folders[i % folders.length] as Folder])));
  return samples;
}
