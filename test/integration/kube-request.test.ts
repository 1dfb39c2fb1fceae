// The operator's raw requests against the run's real kube-apiserver. `versionedGet` (its reads of
// Secret and ConfigMap values): a GET naming a resourceVersion answers the current state (never an
// older one), a plain GET reads the same, a missing object is undefined rather than an error.
// `kubeRequest` (its patches, status writes and events): plain JSON both ways, errors carrying the
// HTTP status and the Status object's reason and message.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { versionedGet, type ObjectGet } from '../../src/operator/secret-cache.ts';
import { describeError } from '../../src/managed/service-errors.ts';
import { KubeHttpError, kubeRequest } from '../../src/runtime/kube-request.ts';
import { clusterFromInjected } from '../support/kube.ts';

let kc: KubeConfig;
let core: CoreV1Api;
let namespace: string;
let get: ObjectGet;

beforeAll(async () => {
  const cluster = clusterFromInjected();
  kc = cluster.kubeConfig();
  core = kc.makeApiClient(CoreV1Api);
  namespace = await cluster.createNamespace();
  get = versionedGet(kc);
});

const b64 = (text: string) => Buffer.from(text).toString('base64');
const path = (name: string) => `/api/v1/namespaces/${namespace}/secrets/${name}`;

describe('versionedGet', () => {
  it('answers the current state when asked for one not older than a past resourceVersion', async () => {
    const created = await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'values' }, data: { key: b64('first') } },
    });
    const firstVersion = created.metadata?.resourceVersion;
    await core.replaceNamespacedSecret({
      name: 'values',
      namespace,
      body: { metadata: { name: 'values' }, data: { key: b64('second') } },
    });
    const answered = await get(path('values'), firstVersion);
    expect((answered?.data as Record<string, string>).key).toBe(b64('second'));
    expect(Number((answered?.metadata as { resourceVersion: string }).resourceVersion)).toBeGreaterThan(
      Number(firstVersion),
    );
  });

  it('reads with a quorum GET when no resourceVersion is given', async () => {
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'plain' }, data: { k: b64('v') } },
    });
    expect(((await get(path('plain'), undefined))?.data as Record<string, string>).k).toBe(b64('v'));
  });

  it('returns undefined for a missing object, with or without a resourceVersion', async () => {
    const other = await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'gone' } } });
    await core.deleteNamespacedSecret({ name: 'gone', namespace });
    expect(await get(path('gone'), other.metadata?.resourceVersion)).toBeUndefined();
    expect(await get(path('never-created'), undefined)).toBeUndefined();
  });

  it('passes other failures on as errors with their HTTP status (an unparsable resourceVersion)', async () => {
    const failure: unknown = await get(path('plain'), 'not-a-version').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(KubeHttpError);
    expect((failure as KubeHttpError).statusCode).toBeGreaterThanOrEqual(400);
    expect((failure as KubeHttpError).statusCode).not.toBe(404);
  });
});

describe('kubeRequest', () => {
  const configMaps = () => `/api/v1/namespaces/${namespace}/configmaps`;

  it('creates, merge-patches and reads objects as plain JSON', async () => {
    const created = (await kubeRequest(kc, {
      method: 'POST',
      path: configMaps(),
      body: { metadata: { name: 'plain-json' }, data: { a: '1' } },
    })) as { metadata: { creationTimestamp: unknown } };
    expect(typeof created.metadata.creationTimestamp).toBe('string');
    const patched = (await kubeRequest(kc, {
      method: 'PATCH',
      path: `${configMaps()}/plain-json`,
      body: { data: { b: '2' } },
      contentType: 'application/merge-patch+json',
    })) as { data: Record<string, string> };
    expect(patched.data).toEqual({ a: '1', b: '2' });
    const read = (await kubeRequest(kc, {
      method: 'GET',
      path: `${configMaps()}/plain-json`,
    })) as typeof patched;
    expect(read.data).toEqual({ a: '1', b: '2' });
  });

  it('applies a JSON patch', async () => {
    await kubeRequest(kc, { method: 'POST', path: configMaps(), body: { metadata: { name: 'json-patch' } } });
    const patched = (await kubeRequest(kc, {
      method: 'PATCH',
      path: `${configMaps()}/json-patch`,
      body: [{ op: 'add', path: '/data', value: { k: 'v' } }],
      contentType: 'application/json-patch+json',
    })) as { data: Record<string, string> };
    expect(patched.data).toEqual({ k: 'v' });
  });

  it('throws KubeHttpError with the status, the Status reason and its message', async () => {
    await kubeRequest(kc, { method: 'POST', path: configMaps(), body: { metadata: { name: 'twice' } } });
    const failure: unknown = await kubeRequest(kc, {
      method: 'POST',
      path: configMaps(),
      body: { metadata: { name: 'twice' } },
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(KubeHttpError);
    expect(failure).toMatchObject({ statusCode: 409, reason: 'AlreadyExists' });
    expect(describeError(failure)).toBe('Kubernetes API answered 409: configmaps "twice" already exists');
  });

  it('reports a missing object as 404 NotFound', async () => {
    await expect(kubeRequest(kc, { method: 'GET', path: `${configMaps()}/missing` })).rejects.toMatchObject({
      statusCode: 404,
      reason: 'NotFound',
    });
  });
});
