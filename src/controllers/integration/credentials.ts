/**
 * Integration credentials: read from the referenced Secrets, sent to the service's
 * integration-auth endpoint, and remembered only as a keyed hash (the service never returns
 * them, so a change is noticed by comparing hashes). Values are never logged or put into errors.
 */
import { createHmac } from 'node:crypto';
import type { IntegrationSpec } from '../../api/v1alpha1/index.ts';
import type { CreateIntegrationAuthInput } from '../../client/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { WaitingError } from '../../runtime/errors.ts';
import type { NamedRef, SecretSource } from '../kind-controller.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';

/** The credential values from the referenced Secrets. */
export interface Credentials {
  readonly accessId: string;
  readonly accessToken: string;
  readonly refreshToken?: string;
}

/** Requeue while a referenced Secret or key is missing (its creation re-triggers at once anyway). */
export const MISSING_SECRET_REQUEUE_MS = 60_000;

type Selector = IntegrationSpec['auth']['accessIdSecretRef'];

function selectors(spec: IntegrationSpec): Selector[] {
  const { accessIdSecretRef, accessTokenSecretRef, refreshTokenSecretRef } = spec.auth;
  return [accessIdSecretRef, accessTokenSecretRef, ...(refreshTokenSecretRef ? [refreshTokenSecretRef] : [])];
}

/** The Secrets an Integration reads, in its namespace (for the operator's Secret watch). */
export function referencedSecrets(obj: ManagedObject<IntegrationSpec>): NamedRef[] {
  const names = [...new Set(selectors(obj.spec).map((s) => s.name))].sort();
  const namespace = obj.metadata.namespace;
  return names.map((name) => ({ name, ...(namespace ? { namespace } : {}) }));
}

async function readKey(source: SecretSource, namespace: string, selector: Selector): Promise<string> {
  const data = await source.read(namespace, selector.name);
  if (data === undefined) {
    throw new WaitingError(
      commonReasons.names.SecretNotFound,
      `cannot read Secret ${namespace}/${selector.name}: it does not exist`,
      MISSING_SECRET_REQUEUE_MS,
    );
  }
  const value = data[selector.key];
  if (value === undefined) {
    throw new WaitingError(
      commonReasons.names.SecretKeyNotFound,
      `cannot read key ${selector.key} of Secret ${namespace}/${selector.name}: the Secret has no such key`,
      MISSING_SECRET_REQUEUE_MS,
    );
  }
  return value;
}

/** Reads the credentials; a missing Secret or key is a `WaitingError`. */
export async function readCredentials(
  source: SecretSource,
  obj: ManagedObject<IntegrationSpec>,
): Promise<Credentials> {
  const namespace = obj.metadata.namespace ?? '';
  const { auth } = obj.spec;
  const accessId = await readKey(source, namespace, auth.accessIdSecretRef);
  const accessToken = await readKey(source, namespace, auth.accessTokenSecretRef);
  if (!auth.refreshTokenSecretRef) return { accessId, accessToken };
  return {
    accessId,
    accessToken,
    refreshToken: await readKey(source, namespace, auth.refreshTokenSecretRef),
  };
}

/** The `POST /api/v1/integration-auth/access-token` body. */
export function authRequest(
  spec: IntegrationSpec,
  projectId: string,
  credentials: Credentials,
): CreateIntegrationAuthInput {
  const { url, namespace, awsAssumeIamRoleArn } = spec.auth;
  return {
    workspaceId: projectId,
    integration: spec.integration,
    accessId: credentials.accessId,
    accessToken: credentials.accessToken,
    ...(credentials.refreshToken === undefined ? {} : { refreshToken: credentials.refreshToken }),
    ...(url === undefined ? {} : { url }),
    ...(namespace === undefined ? {} : { namespace }),
    ...(awsAssumeIamRoleArn === undefined ? {} : { awsAssumeIamRoleArn }),
  };
}

/**
 * HMAC-SHA256 (hex) of everything the auth record is made from, keyed with the resource's uid:
 * equal inputs give equal hashes for this resource only, and the hash reveals nothing usable.
 */
export function credentialsHash(obj: ManagedObject<IntegrationSpec>, credentials: Credentials): string {
  const { url, namespace, awsAssumeIamRoleArn } = obj.spec.auth;
  const material = [
    obj.spec.integration,
    credentials.accessId,
    credentials.accessToken,
    credentials.refreshToken ?? null,
    url ?? null,
    namespace ?? null,
    awsAssumeIamRoleArn ?? null,
  ];
  const key = obj.metadata.uid ?? `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
  return createHmac('sha256', key).update(JSON.stringify(material)).digest('hex');
}
