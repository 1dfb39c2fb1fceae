import type { V1Secret } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { FakeSecrets } from '../../test/support/fake-kube.ts';
import { ConflictError, TerminalError } from './errors.ts';
import { ANNOTATION_DATA_HASH, LABEL_MANAGED_BY, type KubeObject } from './object-meta.ts';
import { createSecretWriter, dataHash } from './secret-writer.ts';

const owner: KubeObject = {
  apiVersion: 'test.coffer.dev/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', uid: 'uid-1' },
};
const output = { name: 'out', data: { token: 'sekret-value-1', id: 'w-1' } };

function setup() {
  const api = new FakeSecrets();
  return { api, writer: createSecretWriter({ api }) };
}

describe('dataHash', () => {
  it('ignores key order and changes with any value', () => {
    expect(dataHash({ a: '1', b: '2' })).toBe(dataHash({ b: '2', a: '1' }));
    expect(dataHash({ a: '1', b: '2' })).not.toBe(dataHash({ a: '1', b: '3' }));
    expect(dataHash({ a: '1', b: '2' })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('SecretWriter', () => {
  it('creates an owned, labelled, hashed Secret', async () => {
    const { api, writer } = setup();
    expect(await writer.write(owner, output)).toBe('created');
    const secret = api.secrets.get('ns/out');
    expect(secret?.metadata?.labels?.[LABEL_MANAGED_BY]).toBe('coffer');
    expect(secret?.metadata?.annotations?.[ANNOTATION_DATA_HASH]).toBe(dataHash(output.data));
    expect(secret?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'test.coffer.dev/v1',
        kind: 'Widget',
        name: 'w',
        uid: 'uid-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(secret?.type).toBe('Opaque');
    expect(api.data('ns', 'out')).toEqual(output.data);
  });

  it.each([
    { reason: 'unchanged data is not written', change: () => undefined, result: 'unchanged', writes: 1 },
    {
      reason: 'data edited by hand is restored',
      change: (api: FakeSecrets) => {
        api.secrets.get('ns/out')!.data!.token = Buffer.from('tampered').toString('base64');
      },
      result: 'updated',
      writes: 2,
    },
    {
      reason: 'a deleted Secret is re-created',
      change: (api: FakeSecrets) => {
        api.secrets.delete('ns/out');
      },
      result: 'created',
      writes: 2,
    },
  ])('$reason', async ({ change, result, writes }) => {
    const { api, writer } = setup();
    await writer.write(owner, output);
    change(api);
    expect(await writer.write(owner, output)).toBe(result);
    expect(api.writes).toHaveLength(writes);
    expect(api.data('ns', 'out')).toEqual(output.data);
  });

  it('updates when the desired data changes, keeping labels added by users', async () => {
    const { api, writer } = setup();
    await writer.write(owner, output);
    api.secrets.get('ns/out')!.metadata!.labels!.team = 'blue';
    expect(await writer.write(owner, { ...output, data: { token: 'rotated' } })).toBe('updated');
    expect(api.data('ns', 'out')).toEqual({ token: 'rotated' });
    expect(api.secrets.get('ns/out')?.metadata?.labels).toEqual({
      team: 'blue',
      [LABEL_MANAGED_BY]: 'coffer',
    });
  });

  it.each([
    {
      reason: 'a Secret without the managed-by label',
      labels: undefined,
      ownerKind: 'Widget',
      ownerName: 'w',
    },
    {
      reason: 'a Coffer Secret controlled by another resource',
      labels: { [LABEL_MANAGED_BY]: 'coffer' },
      ownerKind: 'Widget',
      ownerName: 'other',
    },
  ])('refuses to overwrite $reason', async ({ labels, ownerKind, ownerName }) => {
    const { api, writer } = setup();
    const foreign: V1Secret = {
      metadata: {
        name: 'out',
        namespace: 'ns',
        labels,
        ownerReferences: [
          { apiVersion: 'x/v1', kind: ownerKind, name: ownerName, uid: 'uid-9', controller: true },
        ],
      },
      data: { mine: Buffer.from('theirs').toString('base64') },
    };
    await api.createNamespacedSecret({ namespace: 'ns', body: foreign });
    const error = await writer.write(owner, output).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalError);
    expect(error).toMatchObject({ reason: 'SecretNotOwned' });
    expect(String((error as Error).message)).not.toContain('sekret-value-1');
    expect(api.data('ns', 'out')).toEqual({ mine: 'theirs' });
  });

  it('takes over the Secret of a previous incarnation of the same resource', async () => {
    const { api, writer } = setup();
    await writer.write({ ...owner, metadata: { ...owner.metadata, uid: 'uid-old' } }, output);
    expect(await writer.write(owner, output)).toBe('updated');
    expect(api.secrets.get('ns/out')?.metadata?.ownerReferences?.map((r) => r.uid)).toEqual(['uid-1']);
  });

  it('turns a concurrent write (409) into ConflictError', async () => {
    const { api, writer } = setup();
    await writer.write(owner, output);
    api.replaceNamespacedSecret = () => Promise.reject(Object.assign(new Error('conflict'), { code: 409 }));
    await expect(writer.write(owner, { ...output, data: { token: 'new' } })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it('replaces a Secret whose type changed (the type is immutable)', async () => {
    const { api, writer } = setup();
    await writer.write(owner, output);
    expect(await writer.write(owner, { ...output, type: 'kubernetes.io/basic-auth' })).toBe('updated');
    expect(api.secrets.get('ns/out')?.type).toBe('kubernetes.io/basic-auth');
    expect(api.writes).toEqual(['create ns/out', 'delete ns/out', 'create ns/out']);
  });
});
