// The main scenarios of the kinds, run by test/integration/rbac.test.ts against an operator that
// authenticates as the chart's ServiceAccount. Each scenario throws when it does not complete;
// they run in this order, so the first failure names what a missing permission breaks.
import { createPublicKey, randomBytes, type JsonWebKey } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  CoreV1Api,
  CustomObjectsApi,
  OpenidApi,
  PatchStrategy,
  WellKnownApi,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { createServiceClient, staticToken } from '../../src/client/index.ts';
import { startDevServer, type DevServer } from '../../src/devserver/server.ts';
import { startOperator, type RunningOperator } from '../../src/operator/start.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { statusCodeOf, waitFor } from '../support/kube.ts';
import { workloadSecretRestart } from './rbac-workload-secret.ts';

export const scenarioNames = [
  'operator ready and leading',
  'Bootstrap writes its Secret and Connection, both Ready',
  'Project and SecretBatch Ready, Secret changes pushed',
  'events recorded',
  'deletion removes the finalizer',
  'Connection logs in with a ServiceAccount token (TokenRequest, TokenReview)',
  'WorkloadSecret delivers and restarts an annotated Deployment',
] as const;
export type ScenarioName = (typeof scenarioNames)[number];

const group = 'coffer.dev';
const version = 'v1alpha1';

/** One operator run: fresh namespace, fresh devserver, the operator as the ServiceAccount. */
export interface Run {
  readonly admin: KubeConfig;
  readonly namespace: string;
  readonly devserver: DevServer;
  readonly leaseNamespace: string;
  readonly leaseName: string;
  /** The operator watches only the run's namespace (runs side by side); else every namespace. */
  readonly ownNamespaceOnly: boolean;
  operator?: RunningOperator;
  readonly logs: string[];
  projectId?: string;
  token?: string;
}

function capture(lines: string[]) {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return createLogger({ level: 'debug', name: 'coffer', destination });
}

/**
 * Starts a devserver and creates the run's namespace (as admin); the operator starts in scenario 1.
 * `ownNamespaceOnly`: it will watch only that namespace, so that runs side by side never see
 * each other's objects (cluster-scoped informers still watch the whole cluster).
 */
export async function prepareRun(
  admin: KubeConfig,
  leaseNamespace: string,
  ownNamespaceOnly = false,
): Promise<Run> {
  const namespace = `rbac-${randomBytes(3).toString('hex')}`;
  await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  const devserver = await startDevServer({ port: 0 });
  const leaseName = `coffer-leader-${namespace}`;
  return { admin, namespace, devserver, leaseNamespace, leaseName, ownNamespaceOnly, logs: [] };
}

/** Names a condition for error messages. */
async function condition(run: Run, plural: string, name: string, type = 'Ready'): Promise<string> {
  const custom = run.admin.makeApiClient(CustomObjectsApi);
  try {
    const obj = (await custom.getNamespacedCustomObject({
      group,
      version,
      plural,
      namespace: run.namespace,
      name,
    })) as { status?: { conditions?: { type: string; status: string; reason: string }[] } };
    const c = obj.status?.conditions?.find((x) => x.type === type);
    return c ? `${c.status} ${c.reason}` : 'no condition';
  } catch (error) {
    return `unreadable (${statusCodeOf(error)})`;
  }
}

async function waitReady(run: Run, plural: string, name: string, timeoutMs: number): Promise<void> {
  const custom = run.admin.makeApiClient(CustomObjectsApi);
  try {
    await waitFor(
      async () => {
        const obj = (await custom.getNamespacedCustomObject({
          group,
          version,
          plural,
          namespace: run.namespace,
          name,
        })) as {
          metadata: { generation: number };
          status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
        };
        const ready = obj.status?.conditions?.find((c) => c.type === 'Ready');
        return ready?.status === 'True' && ready.observedGeneration === obj.metadata.generation;
      },
      { timeoutMs, intervalMs: 200 },
    );
  } catch {
    throw new Error(`${plural}/${name} not Ready: ${await condition(run, plural, name)}`);
  }
}

async function create(
  run: Run,
  what: { plural: string; kind: string; name: string },
  spec: object,
): Promise<void> {
  const { plural, kind, name } = what;
  await run.admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group,
    version,
    plural,
    namespace: run.namespace,
    body: { apiVersion: `${group}/${version}`, kind, metadata: { name, namespace: run.namespace }, spec },
  });
}

async function operatorReady(run: Run, serviceAccount: KubeConfig, timeoutMs: number): Promise<void> {
  run.operator = await startOperator({
    kubeConfig: serviceAccount,
    log: capture(run.logs),
    ...(run.ownNamespaceOnly ? { namespaces: [run.namespace] } : {}),
    waitRequeueMs: 1_000,
    clientCloseDelayMs: 500,
    gracefulShutdownTimeoutMs: 2_000,
    leaderElection: {
      namespace: run.leaseNamespace,
      name: run.leaseName,
      identity: `rbac-test-${run.namespace}`,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 500,
    },
  });
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`operator not ready after ${timeoutMs} ms`)), timeoutMs).unref(),
  );
  await Promise.race([run.operator.ready, timeout]);
}

async function bootstrap(run: Run, timeoutMs: number): Promise<void> {
  const core = run.admin.makeApiClient(CoreV1Api);
  const password = randomBytes(12).toString('hex');
  await core.createNamespacedSecret({
    namespace: run.namespace,
    body: { metadata: { name: 'bootstrap-password' }, stringData: { password } },
  });
  await create(
    run,
    { plural: 'bootstraps', kind: 'Bootstrap', name: 'coffer' },
    {
      url: run.devserver.url,
      email: 'admin@example.com',
      passwordSecretRef: { name: 'bootstrap-password', key: 'password' },
      organization: 'RBAC',
      outputSecretName: 'coffer-admin',
      createConnection: true,
      connectionName: 'coffer',
    },
  );
  await waitReady(run, 'bootstraps', 'coffer', timeoutMs);
  await waitReady(run, 'connections', 'coffer', timeoutMs);
  const output = await core.readNamespacedSecret({ namespace: run.namespace, name: 'coffer-admin' });
  run.token = Buffer.from(output.data?.['token'] ?? '', 'base64').toString('utf8');
}

async function serviceValue(run: Run, key: string): Promise<string | undefined> {
  const client = createServiceClient({ baseUrl: run.devserver.url, auth: staticToken(run.token ?? '') });
  try {
    const { secrets } = await client.secrets.list({
      workspaceId: run.projectId ?? '',
      environment: 'dev',
      secretPath: '/',
    });
    return secrets.find((s) => s.secretKey === key)?.secretValue;
  } finally {
    await client.close();
  }
}

async function projectAndBatch(run: Run, timeoutMs: number): Promise<void> {
  const connectionRef = { name: 'coffer' };
  await create(
    run,
    { plural: 'projects', kind: 'Project', name: 'demo' },
    {
      connectionRef,
      name: 'Demo',
      slug: `demo-${run.namespace}`,
      environments: [{ name: 'Development', slug: 'dev', position: 1 }],
    },
  );
  await waitReady(run, 'projects', 'demo', timeoutMs);
  const custom = run.admin.makeApiClient(CustomObjectsApi);
  const project = (await custom.getNamespacedCustomObject({
    group,
    version,
    plural: 'projects',
    namespace: run.namespace,
    name: 'demo',
  })) as { status?: { id?: string } };
  run.projectId = project.status?.id;
  const core = run.admin.makeApiClient(CoreV1Api);
  const source = { namespace: run.namespace, name: 'app-config' };
  await core.createNamespacedSecret({ ...source, body: { metadata: source, stringData: { MODE: 'first' } } });
  await create(
    run,
    { plural: 'secretbatches', kind: 'SecretBatch', name: 'app' },
    {
      connectionRef,
      projectRef: { name: 'demo' },
      environment: 'dev',
      secretPath: '/',
      fromSecret: { name: 'app-config' },
    },
  );
  await waitReady(run, 'secretbatches', 'app', timeoutMs);
  await core.replaceNamespacedSecret({
    ...source,
    body: { metadata: source, stringData: { MODE: 'second' } },
  });
  await waitFor(async () => (await serviceValue(run, 'MODE')) === 'second', {
    timeoutMs,
    message: 'the changed Secret value to reach the service',
  });
}

async function eventsRecorded(run: Run, timeoutMs: number): Promise<void> {
  const core = run.admin.makeApiClient(CoreV1Api);
  await waitFor(
    async () => {
      const list = await core.listNamespacedEvent({
        namespace: run.namespace,
        fieldSelector: 'involvedObject.name=demo',
      });
      return list.items.some((e) => e.reason === 'CreatedExternal' && e.involvedObject.kind === 'Project');
    },
    { timeoutMs, message: 'a CreatedExternal event about Project demo' },
  );
}

async function deletion(run: Run, timeoutMs: number): Promise<void> {
  const custom = run.admin.makeApiClient(CustomObjectsApi);
  const at = { group, version, plural: 'secretbatches', namespace: run.namespace, name: 'app' };
  await custom.deleteNamespacedCustomObject(at);
  await waitFor(
    async () => {
      try {
        await custom.getNamespacedCustomObject(at);
        return false;
      } catch (error) {
        return statusCodeOf(error) === 404;
      }
    },
    { timeoutMs, message: 'SecretBatch app to be gone (finalizer removed)' },
  );
  if ((await serviceValue(run, 'MODE')) !== undefined)
    throw new Error('the deleted SecretBatch left its key in the service');
}

/** A call to the devserver's API with the bootstrap admin's token. */
async function serviceCall(run: Run, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${run.devserver.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${run.token ?? ''}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${String(json['message'])}`);
  return json;
}

/**
 * A Connection with `auth.jwt` and a `serviceAccountRef`: the operator requests the token
 * (serviceaccounts/token) and checks it with a TokenReview (tokenreviews) before sending it to the
 * devserver, which verifies it with the API server's public keys.
 */
async function serviceAccountLogin(run: Run, timeoutMs: number): Promise<void> {
  const core = run.admin.makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({
    namespace: run.namespace,
    body: { metadata: { name: 'app' } },
  });
  // Typed as strings, but client-node hands back the parsed JSON.
  const json = (answer: unknown): unknown => (typeof answer === 'string' ? JSON.parse(answer) : answer);
  const discovery = json(
    await run.admin.makeApiClient(WellKnownApi).getServiceAccountIssuerOpenIDConfiguration(),
  ) as { issuer: string };
  const jwks = json(await run.admin.makeApiClient(OpenidApi).getServiceAccountIssuerOpenIDKeyset()) as {
    keys: JsonWebKey[];
  };
  const publicKeys = jwks.keys.map((key) =>
    createPublicKey({ key, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString(),
  );
  const connection = (await run.admin.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
    group,
    version,
    plural: 'connections',
    namespace: run.namespace,
    name: 'coffer',
  })) as { status?: { organizationId?: string } };
  const created = await serviceCall(run, '/api/v1/identities', {
    name: 'rbac-workload',
    organizationId: connection.status?.organizationId ?? '',
    role: 'no-access',
  });
  const identityId = (created['identity'] as { id: string }).id;
  await serviceCall(run, `/api/v1/auth/jwt-auth/identities/${identityId}`, {
    configurationType: 'static',
    publicKeys,
    boundIssuer: discovery.issuer,
    boundAudiences: 'coffer',
    boundClaims: {},
  });
  await create(
    run,
    { plural: 'connections', kind: 'Connection', name: 'workload' },
    {
      url: run.devserver.url,
      auth: {
        jwt: {
          identityId,
          serviceAccountToken: { serviceAccountRef: { name: 'app', audiences: ['coffer'] } },
        },
      },
    },
  );
  await waitReady(run, 'connections', 'workload', timeoutMs);
}

/**
 * Runs the scenarios in order with `defaultTimeoutMs` each (`expectedFailure.timeoutMs` for the
 * scenario expected to fail); returns the name of the first that failed (and its error), or
 * undefined when all passed.
 */
export async function runScenarios(
  run: Run,
  serviceAccount: KubeConfig,
  defaultTimeoutMs: number,
  expectedFailure?: { scenario: ScenarioName; timeoutMs: number },
): Promise<{ failed: ScenarioName; error: Error } | undefined> {
  // The scenario expected to fail only needs long enough to show it does not pass: the removed
  // rule is gone for good (checked by a SubjectAccessReview first), so waiting longer proves nothing.
  const timeoutFor = (name: ScenarioName) =>
    name === expectedFailure?.scenario ? expectedFailure.timeoutMs : defaultTimeoutMs;
  const steps: Record<ScenarioName, (timeoutMs: number) => Promise<void>> = {
    'operator ready and leading': (timeoutMs) => operatorReady(run, serviceAccount, timeoutMs),
    'Bootstrap writes its Secret and Connection, both Ready': (timeoutMs) => bootstrap(run, timeoutMs),
    'Project and SecretBatch Ready, Secret changes pushed': (timeoutMs) => projectAndBatch(run, timeoutMs),
    'events recorded': (timeoutMs) => eventsRecorded(run, timeoutMs),
    'deletion removes the finalizer': (timeoutMs) => deletion(run, timeoutMs),
    'Connection logs in with a ServiceAccount token (TokenRequest, TokenReview)': (timeoutMs) =>
      serviceAccountLogin(run, timeoutMs),
    'WorkloadSecret delivers and restarts an annotated Deployment': (timeoutMs) =>
      workloadSecretRestart(run, timeoutMs),
  };
  for (const name of scenarioNames) {
    try {
      await steps[name](timeoutFor(name));
    } catch (error) {
      return { failed: name, error: error instanceof Error ? error : new Error(String(error)) };
    }
  }
  return undefined;
}

/** Stops the run's operator and devserver; as admin, strips finalizers and deletes its objects. */
export async function finishRun(run: Run): Promise<void> {
  await run.operator?.stop().catch(() => undefined);
  await run.devserver.close();
  const custom = run.admin.makeApiClient(CustomObjectsApi);
  for (const plural of ['secretbatches', 'projects', 'connections', 'bootstraps']) {
    const list = (await custom.listNamespacedCustomObject({
      group,
      version,
      plural,
      namespace: run.namespace,
    })) as { items: { metadata: { name: string; finalizers?: string[] } }[] };
    for (const item of list.items) {
      const at = { group, version, plural, namespace: run.namespace, name: item.metadata.name };
      if (item.metadata.finalizers?.length)
        await custom.patchNamespacedCustomObject(
          { ...at, body: [{ op: 'remove', path: '/metadata/finalizers' }] },
          setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
        );
      await custom.deleteNamespacedCustomObject(at).catch(() => undefined);
    }
  }
}
