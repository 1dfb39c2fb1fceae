// `versionedGet` (the operator's reads of Secret and ConfigMap values) against the run's real
// kube-apiserver: a GET naming a resourceVersion answers the current state (never an older one),
// a plain GET reads the same, and a missing object is undefined rather than an error.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { versionedGet, type ObjectGet } from '../../src/operator/secret-cache.ts';
import { KubeHttpError } from '../../src/runtime/kube-request.ts';
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
