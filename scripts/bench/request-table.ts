/**
 * kube-apiserver's requests of the operator and of the floor controller side by side, per
 * created resource: what each side asked kube-apiserver (by verb and resource) while its runs
 * converged, and which requests the operator makes beyond the floor's.
 */
import type { RequestCounts } from './apiserver-requests.ts';

/** How far above the floor's per-resource count an operator request counts as beyond it. */
export const beyondFloorMargin = 0.05;

/** One (verb, resource) with both sides' requests per created resource. */
export interface RequestComparison {
  readonly key: string;
  readonly operator: number;
  readonly floor: number;
}

/**
 * Both sides' counts divided by `resources` (the resources created over all the runs counted),
 * every (verb, resource) either side asked for, the operator's largest first.
 */
export function compareRequests(
  operator: RequestCounts,
  floor: RequestCounts,
  resources: number,
): RequestComparison[] {
  const keys = new Set([...operator.keys(), ...floor.keys()]);
  return [...keys]
    .map((key) => ({
      key,
      operator: (operator.get(key) ?? 0) / resources,
      floor: (floor.get(key) ?? 0) / resources,
    }))
    .sort((a, b) => b.operator - a.operator || b.floor - a.floor || a.key.localeCompare(b.key));
}

/** The operator's requests beyond the floor's by more than `margin` per resource, the largest excess first. */
export function beyondFloor(
  rows: readonly RequestComparison[],
  margin = beyondFloorMargin,
): RequestComparison[] {
  const excess = (row: RequestComparison) => row.operator - row.floor;
  return rows.filter((row) => excess(row) > margin).sort((a, b) => excess(b) - excess(a));
}

const perResource = (value: number): string => value.toFixed(2);

/** The comparison as aligned text lines: verb and resource, operator, floor, difference. */
export function requestTableLines(rows: readonly RequestComparison[]): string[] {
  const width = Math.max('verb resource'.length, ...rows.map((row) => row.key.length));
  const cell = (text: string) => text.padStart(9);
  const header = `${'verb resource'.padEnd(width)}  ${cell('operator')}  ${cell('floor')}  ${cell('op − floor')}`;
  return [
    header,
    '-'.repeat(header.length),
    ...rows.map(
      (row) =>
        `${row.key.padEnd(width)}  ${cell(perResource(row.operator))}  ${cell(perResource(row.floor))}  ` +
        cell(`${row.operator >= row.floor ? '+' : '−'}${perResource(Math.abs(row.operator - row.floor))}`),
    ),
  ];
}

/** "GET secrets +0.80, PATCH projects +0.10" (per resource), or "none". */
export function beyondFloorText(rows: readonly RequestComparison[]): string {
  const beyond = beyondFloor(rows);
  if (beyond.length === 0) return 'none';
  return beyond.map((row) => `${row.key} +${perResource(row.operator - row.floor)}`).join(', ');
}
