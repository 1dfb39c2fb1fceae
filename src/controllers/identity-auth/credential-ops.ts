/**
 * Issuing, checking and revoking workload credentials in the service: access tokens of token
 * auth (`POST …/token-auth/identities/{id}/tokens`) and client secrets of universal auth
 * (`POST …/universal-auth/identities/{id}/client-secrets`). Each is labelled
 * `coffer:<namespace>/<name>` (token name / secret description) so one issued but never recorded
 * (a crash in between) can be found and revoked or retired later (`issuance.ts`).
 */
import { isNotFound, type ServiceClient } from '../../client/index.ts';
import type { CredentialCheck } from './credentials.ts';
import type { LabelledCredential } from './issuance.ts';

/**
 * A credential just issued; `data` goes to the Secret and nowhere else. Times are on the
 * operator's clock, the one rotation is scheduled by.
 */
export interface IssuedCredential {
  readonly id: string;
  readonly data: Readonly<Record<string, string>>;
  readonly issuedAt: Date;
  readonly expiresAt?: Date;
}

/** The operations on one method's credentials of one identity. */
export interface CredentialOps {
  issue(label: string): Promise<IssuedCredential>;
  check(id: string): Promise<CredentialCheck>;
  /** Already revoked or gone counts as done. */
  revoke(id: string): Promise<void>;
  /** Live credentials carrying `label`, with their creation times. */
  labelled(label: string): Promise<LabelledCredential[]>;
  /** Whether decoded Secret data holds a credential of this method's shape. */
  secretHolds(data: Readonly<Record<string, string>> | undefined): boolean;
}

export interface CredentialOpsOptions {
  readonly client: ServiceClient;
  readonly identityId: string;
  /** Universal auth's client id (also written to the Secret). */
  readonly clientId?: string;
  readonly now: Date;
  readonly signal: AbortSignal;
}

interface Usage {
  readonly createdAt?: string | null;
  readonly lastRenewedAt?: string | null;
  readonly ttlSeconds?: number;
  readonly uses?: number;
  readonly usesLimit?: number;
  readonly revoked?: boolean;
}

function expiryOf(usage: Usage): Date | undefined {
  const from = Date.parse(usage.lastRenewedAt ?? usage.createdAt ?? '');
  const ttl = usage.ttlSeconds ?? 0;
  return ttl > 0 && Number.isFinite(from) ? new Date(from + ttl * 1000) : undefined;
}

/** Alive unless revoked, used up or expired; with the expiry when there is one. */
function checkUsage(usage: Usage, now: Date): CredentialCheck {
  const expiresAt = expiryOf(usage);
  const limit = usage.usesLimit ?? 0;
  const usedUp = limit > 0 && (usage.uses ?? 0) >= limit;
  const expired = expiresAt !== undefined && expiresAt.getTime() <= now.getTime();
  return { alive: !usage.revoked && !usedUp && !expired, ...(expiresAt ? { expiresAt } : {}) };
}

async function deadOn404(call: () => Promise<CredentialCheck>): Promise<CredentialCheck> {
  try {
    return await call();
  } catch (error) {
    if (isNotFound(error)) return { alive: false };
    throw error;
  }
}

async function ignore404(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

function tokenOps(o: CredentialOpsOptions): CredentialOps {
  const { client, identityId, signal, now } = o;
  const api = client.tokenAuthTokens;
  return {
    async issue(label) {
      const created = await api.create(identityId, { name: label }, { signal });
      const ttl = created.tokenData.accessTokenTTL;
      return {
        id: created.tokenData.id,
        data: { accessToken: created.accessToken },
        issuedAt: now,
        ...(ttl > 0 ? { expiresAt: new Date(now.getTime() + ttl * 1000) } : {}),
      };
    },
    check: (id) =>
      deadOn404(async () => {
        const t = await api.get(id, { signal });
        return checkUsage(
          {
            createdAt: t.createdAt,
            lastRenewedAt: t.accessTokenLastRenewedAt,
            ttlSeconds: t.accessTokenTTL,
            ...(t.accessTokenNumUses === undefined ? {} : { uses: t.accessTokenNumUses }),
            ...(t.accessTokenNumUsesLimit === undefined ? {} : { usesLimit: t.accessTokenNumUsesLimit }),
            revoked:
              t.isAccessTokenRevoked === true || (t.identityId !== undefined && t.identityId !== identityId),
          },
          now,
        );
      }),
    revoke: (id) => ignore404(api.revoke(id, { signal })),
    async labelled(label) {
      const tokens = await api.list(identityId, { limit: 100 }, { signal });
      return tokens
        .filter((t) => t.name === label && t.isAccessTokenRevoked !== true)
        .map((t) => ({ id: t.id, createdAt: t.createdAt }));
    },
    secretHolds: (data) => Boolean(data?.accessToken),
  };
}

function clientSecretOps(o: CredentialOpsOptions): CredentialOps {
  const { client, identityId, signal, now } = o;
  const api = client.universalAuthSecrets;
  const clientId = o.clientId ?? '';
  return {
    async issue(label) {
      const created = await api.create(identityId, { description: label }, { signal });
      return {
        id: created.clientSecretData.id,
        data: { clientId, clientSecret: created.clientSecret },
        issuedAt: now,
      };
    },
    check: (id) =>
      deadOn404(async () => {
        const s = await api.get(identityId, id, { signal });
        return checkUsage(
          {
            createdAt: s.createdAt,
            ...(s.clientSecretTTL === undefined ? {} : { ttlSeconds: s.clientSecretTTL }),
            ...(s.clientSecretNumUses === undefined ? {} : { uses: s.clientSecretNumUses }),
            ...(s.clientSecretNumUsesLimit === undefined ? {} : { usesLimit: s.clientSecretNumUsesLimit }),
            revoked: s.isClientSecretRevoked === true,
          },
          now,
        );
      }),
    revoke: (id) => ignore404(api.revoke(identityId, id, { signal })),
    async labelled(label) {
      const secrets = await api.list(identityId, { signal });
      return secrets
        .filter((s) => s.description === label && s.isClientSecretRevoked !== true)
        .map((s) => ({ id: s.id, createdAt: s.createdAt }));
    },
    secretHolds: (data) => Boolean(data?.clientSecret) && data?.clientId === clientId,
  };
}

/** The credential operations of `method` (token or universal). */
export function credentialOps(method: 'token' | 'universal', options: CredentialOpsOptions): CredentialOps {
  return method === 'token' ? tokenOps(options) : clientSecretOps(options);
}
