/**
 * The persisted form of a devserver: `{version, state, secrets}`, all plain JSON.
 */
import type { DevApp } from '../app.ts';
import { emptyState, stateFromJSON } from './store.ts';
import type { StateData } from './types.ts';

const VERSION = 1;

/** A JSON-serialisable snapshot of everything the devserver holds. */
export function snapshotApp(app: DevApp): unknown {
  return { version: VERSION, state: app.state, secrets: app.secretsSnapshot() };
}

/** The state and secret-store JSON of a snapshot; a fresh instance when there is none. */
export function restoreSnapshot(snapshot: unknown): { state: StateData; secrets: unknown } {
  if (!snapshot || typeof snapshot !== 'object') return { state: emptyState(), secrets: undefined };
  const s = snapshot as { state?: unknown; secrets?: unknown };
  return { state: stateFromJSON(s.state), secrets: s.secrets };
}
