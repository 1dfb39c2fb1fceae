// DeliveryTriggers without an open event stream: every source is read on the first look, kept for
// the resync interval, read again once it passed; a failed read is read again next time; a spec
// change reads everything again.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../../client/index.ts';
import type { ManagedObject } from '../../../managed/external-client.ts';
import type { OperatorServices } from '../../kind-controller.ts';
import { DeliveryTriggers } from './index.ts';

const connection = { client: {} as ServiceClient, key: 'Connection/ns/c' };

function services(): OperatorServices {
  return {
    enqueue: () => undefined,
    connectionFor: () => Promise.resolve(connection),
    reader: () => ({ get: () => Promise.resolve(undefined) }),
    log: pino({ level: 'silent' }),
  } as unknown as OperatorServices;
}

function obj(generation = 1): ManagedObject<{ resyncInterval: string }> {
  return {
    apiVersion: 'coffer.dev/v1alpha1',
    kind: 'WorkloadSecret',
    metadata: { name: 'w', namespace: 'ns', uid: 'u', generation },
    spec: { resyncInterval: '1m' },
  };
}

const scopes = [
  { projectId: 'p1', environment: 'dev', secretPath: '/a', recursive: false },
  { projectSlug: 'shop', environment: 'dev', secretPath: '/', recursive: true },
];

describe('DeliveryTriggers (events unavailable)', () => {
  it('reads each source once per resync interval, again after a failure or a spec change', async () => {
    let now = 0;
    const triggers = new DeliveryTriggers<string>(services(), 'WorkloadSecret', { clock: () => now });
    const reads: number[] = [];
    const readOne = (i: number) => {
      reads.push(i);
      return Promise.resolve(`v${i}`);
    };
    expect(await triggers.read(obj(), connection, scopes, readOne)).toEqual(['v0', 'v1']);
    now = 30_000;
    await triggers.read(obj(), connection, scopes, readOne);
    expect(reads).toEqual([0, 1]);
    expect(triggers.requeueAfterMs(obj())).toBeGreaterThanOrEqual(30_000);
    expect(triggers.requeueAfterMs(obj())).toBeLessThanOrEqual(33_000);
    now = 60_000;
    await triggers.read(obj(), connection, scopes, readOne);
    expect(reads).toEqual([0, 1, 0, 1]);
    await triggers.read(obj(2), connection, scopes, readOne);
    expect(reads).toEqual([0, 1, 0, 1, 0, 1]);
    const failing = (i: number) => (i === 1 ? Promise.reject(new Error('503')) : readOne(i));
    now = 200_000;
    await expect(triggers.read(obj(2), connection, scopes, failing)).rejects.toThrow('503');
    await triggers.read(obj(2), connection, scopes, readOne);
    expect(reads.slice(6)).toEqual([0, 1]);
    expect(triggers.eventsActive(obj(2))).toBe(false);
    triggers.forget({ namespace: 'ns', name: 'w' });
  });
});
