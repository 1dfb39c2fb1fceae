/**
 * Lease operations shared by the lease routes and the expiry reaper: the provider of a dynamic
 * secret, issuing a lease within the TTL rules, renewing, and revoking (recording a failed
 * revocation on the lease instead of losing it).
 */
import type { DevApp } from '../app.ts';
import { badRequest } from '../domain/errors.ts';
import type { DynamicSecretLeaseRecord, DynamicSecretRecord } from '../state/types.ts';
import { kubernetesProvider } from './kubernetes.ts';
import { notAvailable, type DynamicSecretProvider, type LeaseResult } from './provider.ts';
import { ttlMs } from './schemas.ts';
import { sqlDatabaseProvider } from './sql-database.ts';

/** The service's `MAX_LEASE_LIMIT` default: leases one dynamic secret may have at once. */
export const MAX_LEASES = 10_000;

/** Status of a lease (or dynamic secret) whose revocation failed. */
export const FAILED_DELETION = 'failed-deletion';

/** The provider that issues leases for `type`; 400 for types the devserver only stores. */
export function providerFor(type: string): DynamicSecretProvider {
  if (type === 'sql-database') return sqlDatabaseProvider;
  if (type === 'kubernetes') return kubernetesProvider;
  throw notAvailable(`"${type}"`);
}

/** The leases of one dynamic secret, oldest first. */
export function leasesOf(app: DevApp, dynamicSecretId: string): DynamicSecretLeaseRecord[] {
  return Object.values(app.state.dynamicSecretLeases).filter((l) => l.dynamicSecretId === dynamicSecretId);
}

/** What a lease is issued with. */
export interface IssueRequest {
  ttl: string | undefined;
  config: unknown;
  identityName: string;
}

/**
 * Issues a lease: TTL = `ttl` or the default TTL, at most the max TTL (400 "TTL cannot be larger
 * than max TTL"), then the provider's credential. Returns the stored lease and the credentials.
 */
export async function issueLease(
  app: DevApp,
  ds: DynamicSecretRecord,
  request: IssueRequest,
): Promise<{ lease: DynamicSecretLeaseRecord; data: LeaseResult['data'] }> {
  if (leasesOf(app, ds.id).length >= MAX_LEASES) {
    throw badRequest(`Max lease limit reached. Limit: ${MAX_LEASES}`);
  }
  const provider = providerFor(ds.type);
  const now = app.now();
  const expireAt = now + ttlMs(request.ttl || ds.defaultTTL);
  if (ds.maxTTL && expireAt > now + ttlMs(ds.maxTTL)) throw badRequest('TTL cannot be larger than max TTL');
  const result = await provider.create({
    inputs: ds.inputs,
    expireAt,
    now,
    usernameTemplate: ds.usernameTemplate,
    identityName: request.identityName,
    dynamicSecret: { name: ds.name, type: ds.type },
    config: request.config,
  });
  const iso = app.iso();
  const lease: DynamicSecretLeaseRecord = {
    id: app.newId(),
    version: 1,
    externalEntityId: result.entityId,
    expireAt: new Date(expireAt).toISOString(),
    status: null,
    statusDetails: null,
    dynamicSecretId: ds.id,
    config: request.config ?? null,
    createdAt: iso,
    updatedAt: iso,
  };
  app.state.dynamicSecretLeases[lease.id] = lease;
  app.changed();
  return { lease, data: result.data };
}

/**
 * Renews a lease: the new expiry is the current expiry plus `ttl` (or the default TTL), at most
 * creation + max TTL; the provider's renew statement runs with the new expiry.
 */
export async function renewLease(
  app: DevApp,
  ds: DynamicSecretRecord,
  lease: DynamicSecretLeaseRecord,
  ttl: string | undefined,
): Promise<DynamicSecretLeaseRecord> {
  const provider = providerFor(ds.type);
  const expireAt = Date.parse(lease.expireAt) + ttlMs(ttl || ds.defaultTTL);
  if (ds.maxTTL && expireAt > Date.parse(lease.createdAt) + ttlMs(ds.maxTTL)) {
    throw badRequest(
      'The requested renewal would exceed the maximum allowed lease duration. Please choose a shorter TTL',
    );
  }
  await provider.renew(ds.inputs, lease.externalEntityId, expireAt);
  lease.expireAt = new Date(expireAt).toISOString();
  lease.updatedAt = app.iso();
  app.changed();
  return lease;
}

/** Revocations in progress per devserver, so a request and the expiry sweep share one. */
const revoking = new WeakMap<DevApp, Map<string, Promise<DynamicSecretLeaseRecord>>>();

/**
 * Revokes a lease with its provider and deletes it. When the provider fails: with `isForced` the
 * lease is deleted anyway; without, the lease stays with status `failed-deletion` and the reason,
 * and the reaper retries later. Returns the lease as it was deleted or updated. A revocation of
 * the same lease already in progress is joined instead of started again.
 */
export function revokeLease(
  app: DevApp,
  ds: DynamicSecretRecord,
  lease: DynamicSecretLeaseRecord,
  isForced: boolean,
): Promise<DynamicSecretLeaseRecord> {
  const running = revoking.get(app) ?? new Map<string, Promise<DynamicSecretLeaseRecord>>();
  revoking.set(app, running);
  const existing = running.get(lease.id);
  if (existing) return existing;
  const started = revokeNow(app, ds, lease, isForced).finally(() => running.delete(lease.id));
  running.set(lease.id, started);
  return started;
}

async function revokeNow(
  app: DevApp,
  ds: DynamicSecretRecord,
  lease: DynamicSecretLeaseRecord,
  isForced: boolean,
): Promise<DynamicSecretLeaseRecord> {
  try {
    await providerFor(ds.type).revoke(ds.inputs, lease.externalEntityId, lease.config);
  } catch (err) {
    if (!isForced) {
      lease.status = FAILED_DELETION;
      lease.statusDetails = (err instanceof Error ? err.message : String(err)).slice(0, 255);
      lease.updatedAt = app.iso();
      app.changed();
      return lease;
    }
  }
  delete app.state.dynamicSecretLeases[lease.id];
  app.changed();
  return lease;
}
