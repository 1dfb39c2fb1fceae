/**
 * `npm run bench -- --floor [--runs N]`: the operator and the floor controller (`floor-run.ts`)
 * converge the same workload N times each in one invocation, in pairs on the same control plane.
 * The order inside a pair alternates (the last pair runs the floor first, so the operator of the
 * last run is still running for the phases measured after convergence), and every run has
 * namespaces of its own, emptied once measured (`clear-namespace.ts`): no run starts with another
 * run's objects in kube-apiserver's caches. Prints per run both times and their ratio, then the
 * median ratio with its spread, so one noisy run does not decide.
 */
import { sumRequests, type RequestCounts } from './apiserver-requests.ts';

/** What one side's run measured: apply → all Ready and kube-apiserver's requests meanwhile. */
export interface Convergence {
  readonly readyMs: number;
  readonly requests: RequestCounts;
}

/** One run: both sides, in the order they ran. */
export interface Pair {
  readonly run: number;
  readonly floorFirst: boolean;
  readonly operator: Convergence;
  readonly floor: Convergence;
}

/** The two sides of a run; `run` counts from 1, `last` is the run whose operator stays. */
export interface Sides {
  operator(run: number, last: boolean): Promise<Convergence>;
  floor(run: number): Promise<Convergence>;
}

/** Whether run `run` of `runs` converges the floor first (the last one does; they alternate). */
export function floorFirst(run: number, runs: number): boolean {
  return (runs - run) % 2 === 0;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const ratioOf = (pair: Pair): number => pair.operator.readyMs / pair.floor.readyMs;

/** "12.3 s / 11.0 s = 1.12" */
export function pairText(pair: Pair): string {
  return `${seconds(pair.operator.readyMs)} / ${seconds(pair.floor.readyMs)} = ${ratioOf(pair).toFixed(2)}`;
}

/** Runs `runs` pairs one after the other, logging each as it ends. */
export async function runPairs(runs: number, sides: Sides, log: (line: string) => void): Promise<Pair[]> {
  const pairs: Pair[] = [];
  for (let run = 1; run <= runs; run++) {
    const first = floorFirst(run, runs);
    log(`run ${run} of ${runs}: ${first ? 'the floor, then the operator' : 'the operator, then the floor'}`);
    const last = run === runs;
    let operator: Convergence;
    let floor: Convergence;
    if (first) {
      floor = await sides.floor(run);
      operator = await sides.operator(run, last);
    } else {
      operator = await sides.operator(run, last);
      floor = await sides.floor(run);
    }
    const pair = { run, floorFirst: first, operator, floor };
    log(`run ${run} of ${runs}: operator / floor (apply → all Ready) ${pairText(pair)}`);
    pairs.push(pair);
  }
  return pairs;
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] ?? Number.NaN;
  return ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/** Result rows: each run's times and ratio, then the median ratio and its min–max spread. */
export function pairRows(pairs: readonly Pair[], target: number): [string, string][] {
  const ratios = pairs.map(ratioOf);
  const rows: [string, string][] = pairs.map((pair) => [
    `run ${pair.run} (${pair.floorFirst ? 'floor first' : 'operator first'}): operator / floor, apply → all Ready`,
    pairText(pair),
  ]);
  rows.push([
    `operator / floor: median of ${pairs.length} runs (min–max)`,
    `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}; target ≤ ${target})`,
  ]);
  rows.push([
    'median apply → all Ready: operator / floor',
    `${seconds(median(pairs.map((p) => p.operator.readyMs)))} / ${seconds(median(pairs.map((p) => p.floor.readyMs)))}`,
  ]);
  return rows;
}

/** Each side's requests summed over all runs. */
export function requestsOfPairs(pairs: readonly Pair[]): { operator: RequestCounts; floor: RequestCounts } {
  return {
    operator: sumRequests(pairs.map((pair) => pair.operator.requests)),
    floor: sumRequests(pairs.map((pair) => pair.floor.requests)),
  };
}
