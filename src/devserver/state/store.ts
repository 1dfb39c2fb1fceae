/**
 * Creation, snapshot and reload of the devserver's record state (`StateData`).
 */
import { randomBytes } from 'node:crypto';
import type { StateData } from './types.ts';

/** A fresh, un-bootstrapped instance with a new random token-signing key. */
export function emptyState(): StateData {
  return {
    instance: { initialized: false, jwtSecret: randomBytes(32).toString('hex'), adminIdentityIds: [] },
    orgs: {},
    users: {},
    identities: {},
    authMethods: {},
    accessTokens: {},
    clientSecrets: {},
    projects: {},
    environments: {},
    memberships: {},
    privileges: {},
    roles: {},
    templates: {},
    integrationAuths: {},
    integrations: {},
    cas: {},
    dynamicSecrets: {},
    dynamicSecretLeases: {},
  };
}

/**
 * Rebuilds state from a snapshot; collections missing from an older snapshot start empty,
 * so a data file written by a previous devserver version still loads.
 */
export function stateFromJSON(json: unknown): StateData {
  const base = emptyState();
  if (!json || typeof json !== 'object') return base;
  const src = json as Partial<StateData>;
  const out = { ...base } as Record<string, unknown>;
  for (const key of Object.keys(base) as (keyof StateData)[]) {
    if (src[key] && typeof src[key] === 'object') out[key] = src[key];
  }
  return out as unknown as StateData;
}

/** Values of a keyed collection, in insertion order. */
export function values<T>(collection: Record<string, T>): T[] {
  return Object.values(collection);
}

/** Deletes every record of `collection` matching `predicate`. */
export function deleteWhere<T>(collection: Record<string, T>, predicate: (record: T) => boolean): void {
  for (const [id, record] of Object.entries(collection)) if (predicate(record)) delete collection[id];
}
