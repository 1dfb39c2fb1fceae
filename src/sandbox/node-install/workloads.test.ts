import type { V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { probeImage } from '../control-plane/node/images.ts';
import type { WireObject } from '../samples.ts';
import { imageValues } from './operator-image.ts';
import { rolledOut, runnableOnNode } from './workloads.ts';

const deployment: WireObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'demo-app' },
  spec: {
    template: {
      spec: {
        containers: [
          { name: 'app', image: 'busybox:1.37', command: ['sh'], envFrom: [{ secretRef: { name: 'env' } }] },
        ],
      },
    },
  },
};

describe('runnableOnNode', () => {
  it('runs a Deployment on the probe image, never pulled, keeping its environment', () => {
    const container = (runnableOnNode(deployment).spec as { template: { spec: { containers: object[] } } })
      .template.spec.containers[0];
    expect(container).toEqual({
      name: 'app',
      image: probeImage,
      imagePullPolicy: 'Never',
      envFrom: [{ secretRef: { name: 'env' } }],
    });
    expect(
      (deployment.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec
        .containers[0]?.image,
    ).toBe('busybox:1.37');
  });

  it('leaves other objects as they are', () => {
    const secret: WireObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } };
    expect(runnableOnNode(secret)).toBe(secret);
  });
});

describe('rolledOut', () => {
  const at = (status: V1Deployment['status'], generation = 2): V1Deployment => ({
    metadata: { generation },
    spec: { replicas: 1, selector: {}, template: {} },
    status,
  });
  const done = {
    observedGeneration: 2,
    replicas: 1,
    updatedReplicas: 1,
    readyReplicas: 1,
    availableReplicas: 1,
  };

  it.each([
    { reason: 'complete', status: done, want: true },
    { reason: 'generation not observed yet', status: { ...done, observedGeneration: 1 }, want: false },
    { reason: 'an old replica still there', status: { ...done, replicas: 2 }, want: false },
    { reason: 'the new replica not ready', status: { ...done, readyReplicas: 0 }, want: false },
    { reason: 'no status', status: undefined, want: false },
  ])('$reason → $want', ({ status, want }) => {
    expect(rolledOut(at(status))).toBe(want);
  });
});

describe('imageValues', () => {
  it('splits a reference into repository and tag, with pullPolicy Never', () => {
    expect(imageValues('coffer.local/coffer:dev')).toEqual({
      repository: 'coffer.local/coffer',
      tag: 'dev',
      pullPolicy: 'Never',
    });
    expect(imageValues('localhost:5000/coffer:1')).toMatchObject({
      repository: 'localhost:5000/coffer',
      tag: '1',
    });
  });

  it('refuses a reference without a tag', () => {
    expect(() => imageValues('localhost:5000/coffer')).toThrow('no tag');
  });
});
