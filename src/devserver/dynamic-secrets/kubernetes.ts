/**
 * The Kubernetes provider over the API server's REST API, authenticated with the configured
 * `clusterToken` (auth method `api`; the `gateway` method needs a gateway, which the devserver has
 * none of). The CA is trusted when `sslEnabled` is set with a `ca`, else the system roots verify the
 * server, as in the service. The service keeps only the URL's scheme, host and port (443 when none).
 *
 * - `static`: a lease is a TokenRequest for the configured ServiceAccount (`expirationSeconds` = the
 *   lease's remaining time, `audiences` when set); revoking does nothing (the token lives until it
 *   expires), renewing does nothing.
 * - `dynamic`: a lease creates a ServiceAccount (`dynamic-secret-sa-` + 10 random characters, or the
 *   username template) in the lease's `config.namespace` (one of the allowed ones, else the first),
 *   a RoleBinding or ClusterRoleBinding `<name>-role-binding` to the configured role, then requests
 *   its token; revoking deletes the binding and the ServiceAccount.
 *
 * The lease data is `{TOKEN}`. Errors carry the API server's message with the cluster token removed.
 */
import { badRequest, notFound } from '../domain/errors.ts';
import { describeFetchError, fetchJson } from '../auth/outbound.ts';
import type { DynamicSecretProvider, LeaseRequest, LeaseResult } from './provider.ts';
import { kubernetesInputsSchema, type KubernetesInputs } from './schemas.ts';
import { generateUsername, redact } from './templates.ts';

type Dynamic = Extract<KubernetesInputs, { credentialType: 'dynamic' }>;

function parse(raw: Record<string, unknown>): KubernetesInputs {
  const inputs = kubernetesInputsSchema.parse(raw);
  if (inputs.gatewayId) throw notFound(`Gateway with ID ${inputs.gatewayId} not found`);
  return inputs;
}

function baseUrl(inputs: KubernetesInputs): string {
  const url = new URL(inputs.url ?? '');
  return `${url.protocol}//${url.hostname}:${url.port || '443'}`;
}

/** One API call; throws an Error with the API server's message (or the transport error). */
async function call(
  inputs: KubernetesInputs,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<unknown> {
  let result: { status: number; body: unknown };
  try {
    result = await fetchJson(`${baseUrl(inputs)}${path}`, {
      method,
      ca: inputs.sslEnabled && inputs.ca ? inputs.ca : '',
      verifyWithoutCa: true,
      headers: { authorization: `Bearer ${inputs.clusterToken ?? ''}` },
      body,
    });
  } catch (err) {
    throw new Error(describeFetchError(err), { cause: err });
  }
  if (result.status >= 300) {
    const message = (result.body as { message?: unknown } | undefined)?.message;
    throw new Error(typeof message === 'string' ? message : `status ${result.status}`);
  }
  return result.body;
}

function failure(prefix: string, err: unknown, inputs: KubernetesInputs, extra: string[] = []): Error {
  const message = err instanceof Error ? err.message : 'Unknown error';
  return badRequest(`${prefix}: ${redact(message, [inputs.clusterToken ?? '', ...extra])}`);
}

const saPath = (namespace: string, name = '') =>
  `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts${name ? `/${encodeURIComponent(name)}` : ''}`;

function bindingPath(inputs: Dynamic, namespace: string, name = ''): string {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  const base =
    inputs.roleType === 'cluster-role'
      ? `${rbac}/clusterrolebindings`
      : `${rbac}/namespaces/${encodeURIComponent(namespace)}/rolebindings`;
  return name ? `${base}/${encodeURIComponent(name)}` : base;
}

async function requestToken(
  inputs: KubernetesInputs,
  namespace: string,
  name: string,
  request: LeaseRequest,
): Promise<string> {
  const spec = {
    expirationSeconds: Math.floor((request.expireAt - request.now) / 1000),
    ...(inputs.audiences.length > 0 ? { audiences: inputs.audiences } : {}),
  };
  const body = (await call(inputs, 'POST', `${saPath(namespace, name)}/token`, { spec })) as {
    status?: { token?: string };
  };
  return body.status?.token ?? '';
}

function leaseNamespace(inputs: KubernetesInputs, config: unknown): string {
  const wanted = (config as { namespace?: unknown } | null | undefined)?.namespace;
  const requested = typeof wanted === 'string' && wanted ? wanted : undefined;
  if (inputs.credentialType === 'static') {
    if (requested && requested !== inputs.namespace) {
      throw badRequest(`Namespace ${requested} is not allowed. Allowed namespace: ${inputs.namespace}.`);
    }
    return inputs.namespace;
  }
  const allowed = inputs.namespace.split(',').map((ns) => ns.trim());
  if (requested && !allowed.includes(requested)) {
    throw badRequest(`Namespace ${requested} is not allowed. Allowed namespaces: ${allowed.join(', ')}`);
  }
  return requested ?? allowed[0] ?? '';
}

async function createDynamic(inputs: Dynamic, namespace: string, request: LeaseRequest): Promise<string> {
  const name = generateUsername({
    template: request.usernameTemplate,
    identityName: request.identityName,
    dynamicSecret: request.dynamicSecret,
    nowMs: request.now,
    random: { prefix: 'dynamic-secret-sa-', length: 10, lowercase: true },
  });
  await call(inputs, 'POST', saPath(namespace), { metadata: { name, namespace } });
  await call(inputs, 'POST', bindingPath(inputs, namespace), {
    metadata: { name: `${name}-role-binding`, ...(inputs.roleType === 'role' ? { namespace } : {}) },
    roleRef: {
      kind: inputs.roleType === 'cluster-role' ? 'ClusterRole' : 'Role',
      name: inputs.role,
      apiGroup: 'rbac.authorization.k8s.io',
    },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  });
  return name;
}

async function create(request: LeaseRequest): Promise<LeaseResult> {
  const inputs = parse(request.inputs);
  try {
    const namespace = leaseNamespace(inputs, request.config);
    const name =
      inputs.credentialType === 'static'
        ? inputs.serviceAccountName
        : await createDynamic(inputs, namespace, request);
    const token = await requestToken(inputs, namespace, name, request);
    return { entityId: name, data: { TOKEN: token } };
  } catch (err) {
    throw failure('Failed to create lease from provider', err, inputs);
  }
}

async function revoke(raw: Record<string, unknown>, entityId: string, config: unknown): Promise<void> {
  const inputs = parse(raw);
  if (inputs.credentialType === 'static') return;
  const wanted = (config as { namespace?: unknown } | null | undefined)?.namespace;
  const namespace = typeof wanted === 'string' ? wanted : (inputs.namespace.split(',')[0] ?? '').trim();
  try {
    await call(inputs, 'DELETE', bindingPath(inputs, namespace, `${entityId}-role-binding`));
    await call(inputs, 'DELETE', saPath(namespace, entityId));
  } catch (err) {
    throw failure('Failed to revoke lease from provider', err, inputs, [entityId]);
  }
}

async function validateConnection(raw: Record<string, unknown>): Promise<void> {
  const inputs = parse(raw);
  try {
    if (inputs.credentialType === 'static') {
      await call(inputs, 'GET', saPath(inputs.namespace, inputs.serviceAccountName));
    } else {
      for (const namespace of inputs.namespace.split(','))
        await call(inputs, 'GET', saPath(namespace.trim()));
    }
  } catch (err) {
    throw failure('Failed to connect with provider', err, inputs);
  }
}

/** The Kubernetes provider. */
export const kubernetesProvider: DynamicSecretProvider = {
  validateConnection,
  create,
  renew: () => Promise.resolve(),
  revoke,
};
