/**
 * What the test of the chart on the node (test/integration/e2e-chart-node.test.ts) reads about the
 * sandbox it installed, as a user would: the service's view of an identity's last login, the uid
 * and service id of every resource, the uids of the delivered Secrets, the RBAC bindings of a
 * ServiceAccount, what a release left behind, and whether the API server accepts a token.
 */
import {
  AppsV1Api,
  AuthenticationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  type KubeConfig,
  type V1ClusterRoleBinding,
  type V1RoleBinding,
} from '@kubernetes/client-node';
import type { NodeSandbox } from '../../src/sandbox/node-install/start.ts';
import type { StatsSnapshot } from '../../src/devserver/server.ts';
import { findKind, group, version } from '../../src/api/v1alpha1/index.ts';
import { conditionTrue, readCoffer, type CofferObject } from './node-operator.ts';
import { waitFor } from './wait-for.ts';

/** uid and service id of resources, by `kind/namespace/name`. */
export type ObjectSnapshot = Map<string, { uid: string; id: string }>;

/** A namespaced coffer.dev resource. */
export interface ResourceRef {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/**
 * When and how the service last saw the identity `identityId` log in (its
 * `GET /api/v1/identities/{id}`, as the admin whose token the Bootstrap wrote); `status` is the
 * HTTP status of the answer.
 */
export async function lastLogin(
  sandbox: NodeSandbox,
  identityId: string,
): Promise<{ status: number; time: string; method: string }> {
  const core = sandbox.cluster.kubeConfig().makeApiClient(CoreV1Api);
  const secret = await core.readNamespacedSecret({ namespace: sandbox.namespace, name: 'coffer-admin' });
  const token = Buffer.from(secret.data?.['token'] ?? '', 'base64').toString('utf8');
  const reply = await fetch(`${sandbox.devserver.url}/api/v1/identities/${identityId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (reply.status !== 200) return { status: reply.status, time: '', method: '' };
  const { identity } = (await reply.json()) as {
    identity: { lastLoginTime?: string | null; lastLoginAuthMethod?: string | null };
  };
  return {
    status: reply.status,
    time: identity.lastLoginTime ?? '',
    method: identity.lastLoginAuthMethod ?? '',
  };
}

/** uid and service id of the samples' resources and of `more`, by kind/namespace/name. */
export async function snapshotObjects(
  sandbox: NodeSandbox,
  more: readonly ResourceRef[],
): Promise<ObjectSnapshot> {
  const kc = sandbox.cluster.kubeConfig();
  const snapshot: ObjectSnapshot = new Map();
  for (const r of [...sandbox.plan.resources, ...more]) {
    if (!r.namespace) continue;
    const obj: CofferObject = await readCoffer(kc, r.kind, { namespace: r.namespace, name: r.name });
    snapshot.set(`${r.kind}/${r.namespace}/${r.name}`, {
      uid: obj.metadata.uid ?? '',
      id: obj.metadata.annotations?.['coffer.dev/external-id'] ?? obj.status?.id ?? '',
    });
  }
  return snapshot;
}

/** uid of every Secret in the samples' namespace (the delivered ones among them), by name. */
export async function secretUids(sandbox: NodeSandbox): Promise<Map<string, string>> {
  const core = sandbox.cluster.kubeConfig().makeApiClient(CoreV1Api);
  const secrets = await core.listNamespacedSecret({ namespace: sandbox.namespace });
  return new Map(secrets.items.map((s) => [s.metadata?.name ?? '', s.metadata?.uid ?? '']));
}

/** The ClusterRoleBindings and RoleBindings whose subjects include the ServiceAccount `account`. */
export async function bindingsOf(
  kc: KubeConfig,
  account: { readonly name: string; readonly namespace: string },
): Promise<(V1ClusterRoleBinding | V1RoleBinding)[]> {
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  return [
    ...(await rbac.listClusterRoleBinding()).items,
    ...(await rbac.listRoleBindingForAllNamespaces()).items,
  ].filter((binding) =>
    (binding.subjects ?? []).some(
      (s) => s.kind === 'ServiceAccount' && s.name === account.name && s.namespace === account.namespace,
    ),
  );
}

/**
 * The names of the objects of the release `release` (labelled `app.kubernetes.io/instance`) still
 * there, and of every Deployment, ReplicaSet, Service, Secret and ServiceAccount but `default`
 * in its namespace.
 */
export async function releaseObjectsLeft(
  kc: KubeConfig,
  release: { readonly name: string; readonly namespace: string },
): Promise<(string | undefined)[]> {
  const { namespace } = release;
  const labelSelector = `app.kubernetes.io/instance=${release.name}`;
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  return [
    ...(await apps.listNamespacedDeployment({ namespace })).items,
    ...(await apps.listNamespacedReplicaSet({ namespace })).items,
    ...(await core.listNamespacedService({ namespace })).items,
    ...(await core.listNamespacedSecret({ namespace })).items,
    ...(await core.listNamespacedServiceAccount({ namespace })).items.filter(
      (sa) => sa.metadata?.name !== 'default',
    ),
    ...(await rbac.listClusterRole({ labelSelector })).items,
    ...(await rbac.listClusterRoleBinding({ labelSelector })).items,
    ...(await rbac.listRoleBindingForAllNamespaces({ labelSelector })).items,
    ...(await rbac.listRoleForAllNamespaces({ labelSelector })).items,
  ].map((obj) => obj.metadata?.name);
}

/** Whether the API server authenticates `token` for the audience coffer (a TokenReview). */
export async function acceptedByApiServer(kc: KubeConfig, token: string): Promise<boolean> {
  try {
    const authn = kc.makeApiClient(AuthenticationV1Api);
    const review = await authn.createTokenReview({ body: { spec: { token, audiences: ['coffer'] } } });
    return review.status?.authenticated === true;
  } catch {
    // The request (and so the token) is never part of the error.
    throw new Error('cannot create a TokenReview');
  }
}

/** Creates the coffer.dev object `kind` in `namespace` from `obj` (its metadata and spec). */
export async function createCoffer(
  kc: KubeConfig,
  kind: string,
  namespace: string,
  obj: Record<string, unknown>,
): Promise<void> {
  const plural = findKind(kind)?.plural ?? '';
  const body = { apiVersion: `${group}/${version}`, kind, ...obj };
  await kc
    .makeApiClient(CustomObjectsApi)
    .createNamespacedCustomObject({ group, version, plural, namespace, body });
}

/** Waits (90 s at most) until the coffer.dev object is Ready and Synced for its generation; returns it. */
export function waitCofferReady(
  kc: KubeConfig,
  kind: string,
  where: { namespace: string; name: string },
): Promise<CofferObject> {
  return waitFor(
    async () => {
      const obj = await readCoffer(kc, kind, where);
      return conditionTrue(obj, 'Ready') && conditionTrue(obj, 'Synced') ? obj : undefined;
    },
    {
      timeoutMs: 90_000,
      intervalMs: 500,
      message: `${kind} ${where.namespace}/${where.name} to be Ready and Synced`,
    },
  );
}

/**
 * Creates, in `namespace` through the Connection `coffer`, the Identity `coffer-operator` (org role
 * no-access) and its Kubernetes auth (IdentityAuth `coffer-operator-kubernetes`) admitting the
 * ServiceAccount `account` with the audience coffer, waits for both to be Ready, and returns the
 * identity's id.
 */
export async function createKubernetesIdentity(
  kc: KubeConfig,
  namespace: string,
  account: { readonly namespace: string; readonly name: string },
): Promise<string> {
  await createCoffer(kc, 'Identity', namespace, {
    metadata: { name: 'coffer-operator' },
    spec: { connectionRef: { name: 'coffer' }, name: 'coffer-operator', role: 'no-access' },
  });
  await createCoffer(kc, 'IdentityAuth', namespace, {
    metadata: { name: 'coffer-operator-kubernetes' },
    spec: {
      connectionRef: { name: 'coffer' },
      identityRef: { name: 'coffer-operator' },
      method: 'kubernetes',
      kubernetes: {
        allowedNamespaces: [account.namespace],
        allowedNames: [account.name],
        allowedAudience: 'coffer',
        tokenReviewerJwtSecretRef: { name: 'coffer-token-reviewer' },
      },
    },
  });
  const identity = await waitCofferReady(kc, 'Identity', { namespace, name: 'coffer-operator' });
  await waitCofferReady(kc, 'IdentityAuth', { namespace, name: 'coffer-operator-kubernetes' });
  return identity.status?.id ?? '';
}

/** The service writes counted in `now` but not in `then`, by route (routes without a change left out). */
export function writesSince(
  then: StatsSnapshot['writes'],
  now: StatsSnapshot['writes'],
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(now.byRoute)
      .map(([route, count]) => [route, count - (then.byRoute[route] ?? 0)] as const)
      .filter(([, count]) => count !== 0),
  );
}

/**
 * Creates the Connection `namespace/name` to the service at `url`, logging in as `identityId` with
 * the operator's projected token, and waits for it to be Ready and Synced.
 */
export async function createTokenConnection(
  kc: KubeConfig,
  connection: {
    readonly namespace: string;
    readonly name: string;
    readonly url: string;
    readonly identityId: string;
  },
): Promise<void> {
  const { namespace, name, url, identityId } = connection;
  await createCoffer(kc, 'Connection', namespace, {
    metadata: { name },
    spec: { url, auth: { kubernetes: { identityId, serviceAccountToken: { projected: {} } } } },
  });
  await waitCofferReady(kc, 'Connection', { namespace, name });
}
