// The chart's values for logging in without a stored credential: the operator's projected
// ServiceAccount token (audience and lifetime configurable, on by default, off on request, the
// kubelet's 10-minute minimum enforced by values.schema.json), mounted in the operator's default
// projected-token directory, and the optional system:auth-delegator binding for the operator's
// ServiceAccount. The default render with both goes through a server-side dry-run in chart.test.ts.
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { defaultProjectedTokenDir } from '../../src/api/v1alpha1/index.ts';
import { renderChart } from '../support/chart.ts';

function deployment(objects: KubernetesObject[]): V1Deployment {
  const found = objects.filter((o) => o.kind === 'Deployment');
  expect(found).toHaveLength(1);
  return found[0] as V1Deployment;
}

const tokenVolume = (objects: KubernetesObject[]) =>
  deployment(objects).spec?.template.spec?.volumes?.find((v) => v.name === 'coffer-token');
const mounts = (objects: KubernetesObject[]) =>
  deployment(objects).spec?.template.spec?.containers.find((c) => c.name === 'operator')?.volumeMounts;

describe('chart: the operator’s ServiceAccount token', () => {
  it('projects a token with audience coffer for one hour at the operator’s default path', () => {
    const objects = renderChart('coffer', 'ops');
    expect(tokenVolume(objects)?.projected?.sources).toEqual([
      { serviceAccountToken: { path: 'token', audience: 'coffer', expirationSeconds: 3600 } },
    ]);
    expect(mounts(objects)).toContainEqual({
      name: 'coffer-token',
      mountPath: '/var/run/secrets/coffer.dev/serviceaccount',
      readOnly: true,
    });
  });

  it('mounts it in the operator’s default --projected-token-dir, so no flag is needed', () => {
    const objects = renderChart('coffer', 'ops');
    expect(mounts(objects)?.find((m) => m.name === 'coffer-token')?.mountPath).toBe(defaultProjectedTokenDir);
    const args = deployment(objects).spec?.template.spec?.containers.find((c) => c.name === 'operator')?.args;
    expect(args?.filter((arg) => arg.startsWith('--projected-token-dir'))).toEqual([]);
  });

  it('takes the audience and lifetime from values, and can be turned off', () => {
    const custom = renderChart('coffer', 'ops', [
      'serviceAccountToken.projected.audience=secrets.example.com',
      'serviceAccountToken.projected.expirationSeconds=600',
    ]);
    expect(tokenVolume(custom)?.projected?.sources?.[0]?.serviceAccountToken).toEqual({
      path: 'token',
      audience: 'secrets.example.com',
      expirationSeconds: 600,
    });
    const off = renderChart('coffer', 'ops', ['serviceAccountToken.projected.enabled=false']);
    expect(tokenVolume(off)).toBeUndefined();
    expect(mounts(off)).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
  });

  it('refuses a lifetime under the kubelet’s 10 minutes and an empty audience', () => {
    expect(() =>
      renderChart('coffer', 'ops', ['serviceAccountToken.projected.expirationSeconds=60']),
    ).toThrow(/expirationSeconds/);
    expect(() => renderChart('coffer', 'ops', ['serviceAccountToken.projected.audience='])).toThrow(
      /audience/,
    );
  });
});

describe('chart: system:auth-delegator for the operator', () => {
  it('binds the ClusterRole to the operator’s ServiceAccount only when asked', () => {
    const named = (objects: KubernetesObject[]) =>
      objects.filter((o) => o.kind === 'ClusterRoleBinding' && o.metadata?.name === 'coffer-auth-delegator');
    expect(named(renderChart('coffer', 'ops'))).toEqual([]);
    const [binding] = named(
      renderChart('coffer', 'ops', ['authDelegator.enabled=true']),
    ) as (KubernetesObject & {
      roleRef: unknown;
      subjects: unknown[];
    })[];
    expect(binding?.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'system:auth-delegator',
    });
    expect(binding?.subjects).toEqual([{ kind: 'ServiceAccount', name: 'coffer', namespace: 'ops' }]);
  });
});
