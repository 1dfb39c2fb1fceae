/**
 * What a dynamic-secret provider does for the devserver: check its connection when a dynamic secret
 * is created or updated, and create, renew and revoke the external credential of a lease. Errors are
 * `DomainError`s whose messages never contain credentials.
 */
import { badRequest } from '../domain/errors.ts';

/** What a lease is created from. */
export interface LeaseRequest {
  /** Validated provider inputs. */
  inputs: Record<string, unknown>;
  /** Expiry in ms since the epoch (server clock). */
  expireAt: number;
  /** Server clock now, in ms. */
  now: number;
  usernameTemplate: string | null;
  identityName: string;
  dynamicSecret: { name: string; type: string };
  /** The lease's `config` from the request (Kubernetes: `{namespace}`). */
  config: unknown;
}

/** The external credential of a new lease. */
export interface LeaseResult {
  /** What the provider created (a role name, a ServiceAccount name). */
  entityId: string;
  /** The credentials handed to the caller once (`DB_USERNAME`/`DB_PASSWORD`, `TOKEN`). */
  data: Record<string, string>;
}

export interface DynamicSecretProvider {
  /** 400 "Failed to connect with provider: …" when the provider cannot be reached with `inputs`. */
  validateConnection(inputs: Record<string, unknown>): Promise<void>;
  create(request: LeaseRequest): Promise<LeaseResult>;
  renew(inputs: Record<string, unknown>, entityId: string, expireAt: number): Promise<void>;
  revoke(inputs: Record<string, unknown>, entityId: string, config: unknown): Promise<void>;
}

/** 400 for a provider type (or SQL client) the devserver stores but cannot issue leases for. */
export function notAvailable(what: string): Error {
  return badRequest(`Dynamic secret provider ${what} is not available in the devserver`);
}
