/**
 * Summarises a V8 heap snapshot by object type and code by script (not a test):
 *
 *   node scripts/bench/heap-summary.ts <file.heapsnapshot> [--top 25]
 *
 * Prints the total self size and the largest groups (constructor names for objects, `(string)`,
 * `(array)`, `(closure)`, `(code)`… for the rest), then each script's source text and compiled
 * code (bundle chunks labelled with their largest inputs from the last `npm run build`). See
 * `heap.ts`.
 */
import { parseArgs } from 'node:util';
import { parseCommandLine } from '../command-line.ts';
import { heapByScriptText, heapSummaryText, summariseHeapByScript, summariseHeapSnapshot } from './heap.ts';

const usage = `usage: node scripts/bench/heap-summary.ts <file.heapsnapshot> [--top 25]`;

const { values, positionals } = parseCommandLine(usage, () =>
  parseArgs({ options: { top: { type: 'string', default: '25' } }, allowPositionals: true }),
);
for (const path of positionals) {
  console.log(path);
  console.log(heapSummaryText(summariseHeapSnapshot(path), Number(values.top)));
  console.log(heapByScriptText(summariseHeapByScript(path), Number(values.top)));
}
