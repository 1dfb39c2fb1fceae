/**
 * Connection: a namespaced handle on one service instance and the credentials to use there.
 * Every other namespaced kind points at one with `connectionRef`.
 */
import { z } from 'zod';
import { configMapKeySelector, secretKeySelector } from './common.ts';
import { connectionColumns, connectionSpecFields, connectionStatusSchema } from './connection-fields.ts';
import { defineKind } from './kind.ts';
import { localLoginRefs } from './service-account-login.ts';

export const connectionSpec = z
  .object(connectionSpecFields(secretKeySelector, configMapKeySelector, localLoginRefs))
  .describe(
    'Where the service is and how to authenticate; Secrets and ConfigMaps are read from this namespace.',
  );
export type ConnectionSpec = z.output<typeof connectionSpec>;

export const connectionStatus = connectionStatusSchema;
export type ConnectionStatus = z.output<typeof connectionStatus>;

export const connectionKind = defineKind({
  kind: 'Connection',
  plural: 'connections',
  shortNames: ['conn'],
  scope: 'Namespaced',
  description:
    'A service instance (URL, TLS) and how the operator logs in there (access token, universal auth, or a ' +
    'ServiceAccount token through Kubernetes, JWT or OIDC auth) ' +
    'there on behalf of resources in this namespace. Ready when the service accepts the credentials.',
  spec: connectionSpec,
  status: connectionStatus,
  columns: connectionColumns,
  defaultDeletionPolicy: undefined,
});
