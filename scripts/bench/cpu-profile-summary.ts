/**
 * Summarises a V8 CPU profile (`--cpu-prof` in a benchmark's `--node-options`): sampled time by
 * function, self and total (a function counted once per sample however deep it recurses), with
 * the bundle chunk and line it comes from. For reading where the operator's CPU goes; not a test.
 *
 *   npm run bench -- --n 10000 --converge-only --poll-interval 1h \
 *     "--node-options=--max-semi-space-size=2 --max-old-space-size=256 --cpu-prof --cpu-prof-dir=/tmp/prof"
 *   node scripts/bench/cpu-profile-summary.ts /tmp/prof/<file>.cpuprofile [--top 40]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url.split('/').pop() ?? ''}:${lineNumber + 1}`;
}

/** Self and total microseconds by function label. */
export function summarise(profile: Profile): {
  all: number;
  self: Map<string, number>;
  total: Map<string, number>;
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const perNode = new Map<number, number>();
  profile.samples.forEach((id, i) => perNode.set(id, (perNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  for (const [id, micros] of perNode) {
    all += micros;
    const leaf = byId.get(id);
    if (!leaf) continue;
    self.set(label(leaf), (self.get(label(leaf)) ?? 0) + micros);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (!node || seen.has(label(node))) continue;
      seen.add(label(node));
      total.set(label(node), (total.get(label(node)) ?? 0) + micros);
    }
  }
  return { all, self, total };
}

function table(figures: Map<string, number>, all: number, top: number): string {
  return [...figures]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, micros]) => {
      const seconds = (micros / 1e6).toFixed(2).padStart(8);
      return `${seconds} s ${((100 * micros) / all).toFixed(1).padStart(5)}%  ${name}`;
    })
    .join('\n');
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '40' }, help: { type: 'boolean', default: false } },
  });
  const file = positionals[0];
  if (values.help || !file) {
    console.log('usage: node scripts/bench/cpu-profile-summary.ts <file.cpuprofile> [--top N]');
    process.exit(values.help ? 0 : 2);
  }
  const { all, self, total } = summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  const top = Number(values.top);
  console.log(`sampled ${(all / 1e6).toFixed(1)} s (idle included)`);
  console.log(`--- self time\n${table(self, all, top)}`);
  console.log(`--- total time\n${table(total, all, top)}`);
}
