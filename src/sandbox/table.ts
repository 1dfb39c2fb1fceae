/**
 * Text rendering of the sandbox's resource states: a fixed-column table (redrawn in place on a
 * terminal), one line per change otherwise, and the failing conditions after a timeout.
 */
import type { Condition } from '../runtime/conditions.ts';
import { allSettled, isSettled, type ResourceState } from './status.ts';

/** Marker of kinds whose controller is not in this build yet. */
export const NO_CONTROLLER = 'NoController';

interface Row {
  readonly kind: string;
  readonly name: string;
  readonly ready: string;
  readonly synced: string;
  readonly reason: string;
  readonly message: string;
}

const noControllerRow = {
  ready: '-',
  synced: '-',
  reason: NO_CONTROLLER,
  message: 'waiting: this build has no controller for the kind yet',
};
const pendingRow = { ready: '-', synced: '-', reason: 'Pending', message: 'not created yet' };

const statusOf = (condition: Condition | undefined): string => condition?.status ?? 'Unknown';

/** Columns of a resource that exists and is reconciled. */
function reconciledColumns(state: ResourceState): Omit<Row, 'kind' | 'name'> {
  const ready = statusOf(state.ready);
  const synced = statusOf(state.synced);
  if (isSettled(state)) return { ready, synced, reason: state.ready?.reason ?? '', message: '' };
  // The condition that explains the wait: Synced=False says why, else Ready's own reason.
  const explaining = synced === 'False' ? state.synced : state.ready;
  return {
    // Ready=True for an older generation: the operator has not looked at the latest spec yet.
    ready: ready === 'True' && !state.isReady ? 'Stale' : ready,
    synced,
    reason: explaining ? explaining.reason : 'Reconciling',
    message: explaining ? explaining.message : 'waiting for the operator',
  };
}

function rowOf(state: ResourceState): Row {
  const base = { kind: state.kind, name: state.name };
  if (!state.registered) return { ...base, ...noControllerRow };
  if (!state.exists) return { ...base, ...pendingRow };
  const columns = reconciledColumns(state);
  if (!state.blocked || isSettled(state)) return { ...base, ...columns };
  return { ...base, ...columns, message: `(no controller for a dependency) ${columns.message}` };
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/**
 * A one-line summary: how many are Ready and Synced, how many kinds have no controller yet,
 * elapsed time.
 */
export function summaryLine(states: readonly ResourceState[], elapsedMs: number): string {
  const expected = states.filter((s) => !s.blocked);
  const settled = expected.filter(isSettled).length;
  const waiting = states.length - expected.length;
  const seconds = (elapsedMs / 1000).toFixed(1);
  const verdict = allSettled(states) ? 'all Ready and Synced' : 'reconciling';
  const extra = waiting > 0 ? `, ${waiting} waiting on kinds without a controller in this build` : '';
  return `${settled}/${expected.length} Ready and Synced${extra} · ${verdict} · ${seconds} s`;
}

/**
 * The table as lines (header first). `width` (terminal columns) cuts long messages so every row
 * stays on one line, which in-place redrawing relies on.
 */
export function renderTable(states: readonly ResourceState[], width = Number.POSITIVE_INFINITY): string[] {
  const rows = states.map(rowOf);
  const header: Row = {
    kind: 'KIND',
    name: 'NAME',
    ready: 'READY',
    synced: 'SYNCED',
    reason: 'REASON',
    message: 'MESSAGE',
  };
  const all = [header, ...rows];
  const widthOf = (key: keyof Row) => Math.max(...all.map((row) => row[key].length));
  const columns = (['kind', 'name', 'ready', 'synced', 'reason'] as const).map((key) => ({
    key,
    width: widthOf(key),
  }));
  return all.map((row) => {
    const line = columns.map(({ key, width: w }) => pad(row[key], w)).join('  ') + '  ' + row.message;
    const trimmed = line.trimEnd();
    return trimmed.length > width ? `${trimmed.slice(0, Math.max(0, width - 1))}…` : trimmed;
  });
}

/** One line per resource whose displayed state differs from `previous` (for non-terminal output). */
export function changedLines(
  states: readonly ResourceState[],
  previous: ReadonlyMap<string, string>,
): { lines: string[]; next: Map<string, string> } {
  const next = new Map<string, string>();
  const lines: string[] = [];
  for (const state of states) {
    const row = rowOf(state);
    const key = `${row.kind}/${row.name}`;
    const text = `${key}: Ready=${row.ready} Synced=${row.synced} ${row.reason}${row.message ? ` (${row.message})` : ''}`;
    next.set(key, text);
    if (previous.get(key) !== text) lines.push(text);
  }
  return { lines, next };
}

function conditionText(condition: Condition | undefined, type: string): string {
  if (!condition) return `${type}: not reported`;
  return `${type}=${condition.status} ${condition.reason}: ${condition.message}`;
}

/** The conditions of every registered resource that is not Ready and Synced (after a timeout). */
export function failureLines(states: readonly ResourceState[]): string[] {
  return states
    .filter((s) => !s.blocked && !isSettled(s))
    .flatMap((s) => {
      const where = s.namespace ? ` (namespace ${s.namespace})` : '';
      if (!s.exists) return [`${s.kind}/${s.name}${where}: does not exist`];
      return [
        `${s.kind}/${s.name}${where}:`,
        `    ${conditionText(s.ready, 'Ready')}`,
        `    ${conditionText(s.synced, 'Synced')}`,
      ];
    });
}
