/**
 * The Connection a Bootstrap creates with `createConnection: true`: same URL and TLS settings,
 * authenticating with the token in the output Secret, owned by the Bootstrap (garbage-collected
 * with it). A Connection of that name that the Bootstrap does not own is never touched.
 */
import type { KubeCustomObjectsApi } from '../../runtime/kube-clients.ts';
import { apiVersion, connectionKind, group, version, type BootstrapSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { kubernetesStatus, TerminalError } from '../../runtime/errors.ts';
import {
  controllerOf,
  controllerReference,
  LABEL_MANAGED_BY,
  MANAGED_BY_VALUE,
  type KubeObject,
} from '../../runtime/object-meta.ts';
import { deepEqual } from '../../runtime/status.ts';
import { bootstrapReasons } from './reasons.ts';

/** Key of the output Secret holding the access token. */
export const TOKEN_KEY = 'token';

/** The spec of the Connection a Bootstrap creates. */
export function connectionSpecFor(spec: BootstrapSpec): Record<string, unknown> {
  return {
    url: spec.url,
    ...(spec.tls ? { tls: spec.tls } : {}),
    auth: { token: { secretRef: { name: spec.outputSecretName, key: TOKEN_KEY } } },
  };
}

/** The name of the Connection a Bootstrap creates. */
export function connectionNameOf(obj: ManagedObject<BootstrapSpec>): string {
  return obj.spec.connectionName ?? obj.metadata.name;
}

type Stored = KubeObject & { spec?: unknown };

async function read(api: KubeCustomObjectsApi, namespace: string, name: string): Promise<Stored | undefined> {
  try {
    return (await api.getNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: connectionKind.plural,
      name,
    })) as Stored;
  } catch (error) {
    if (kubernetesStatus(error) === 404) return undefined;
    throw error;
  }
}

/**
 * Creates the Connection, or brings an owned one's spec back in line. Returns `created`,
 * `updated` or `unchanged`; throws `TerminalError` (`ConnectionNotOwned`) for a foreign one.
 */
export async function ensureConnection(
  api: KubeCustomObjectsApi,
  owner: ManagedObject<BootstrapSpec>,
): Promise<'created' | 'updated' | 'unchanged'> {
  const namespace = owner.metadata.namespace ?? '';
  const name = connectionNameOf(owner);
  const spec = connectionSpecFor(owner.spec);
  const existing = await read(api, namespace, name);
  const coordinates = { group, version, namespace, plural: connectionKind.plural };
  if (!existing) {
    const body = {
      apiVersion,
      kind: connectionKind.kind,
      metadata: {
        name,
        namespace,
        labels: { [LABEL_MANAGED_BY]: MANAGED_BY_VALUE },
        ownerReferences: [controllerReference(owner)],
      },
      spec,
    };
    await api.createNamespacedCustomObject({ ...coordinates, body });
    return 'created';
  }
  if (controllerOf(existing)?.uid !== owner.metadata.uid) {
    throw new TerminalError(
      bootstrapReasons.names.ConnectionNotOwned,
      `cannot create Connection ${name}: a Connection of that name exists and is not owned by this Bootstrap; ` +
        'set spec.connectionName to another name',
    );
  }
  if (deepEqual(existing.spec, spec)) return 'unchanged';
  await api.replaceNamespacedCustomObject({ ...coordinates, name, body: { ...existing, spec } });
  return 'updated';
}
