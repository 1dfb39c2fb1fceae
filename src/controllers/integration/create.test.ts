import { describe, expect, it } from 'vitest';
import { integrationSpec } from '../../api/v1alpha1/index.ts';
import { ForbiddenError, isSecretSyncRefusal } from '../../client/index.ts';
import type { Condition } from '../../runtime/conditions.ts';
import { ANNOTATION_RECONCILE_REQUESTED_AT } from '../../runtime/object-meta.ts';
import { managed } from '../project/testing.ts';
import { INTEGRATIONS_DEPRECATED, standingRefusal } from './create.ts';

const spec = integrationSpec.parse({
  connectionRef: { name: 'c' },
  projectRef: { name: 'p' },
  integration: 'aws-secret-manager',
  environment: 'prod',
  auth: { accessIdSecretRef: { name: 's', key: 'a' }, accessTokenSecretRef: { name: 's', key: 'b' } },
});

const synced = (reason: string, observedGeneration = 1): Condition => ({
  type: 'Synced',
  status: 'False',
  reason,
  message: 'cannot create integration: service answered 403: use Secret Syncs',
  lastTransitionTime: '2030-01-01T00:00:00Z',
  observedGeneration,
});

function obj(condition: Condition, options: { requested?: string; handled?: string } = {}) {
  const annotations: Record<string, string> = options.requested
    ? { [ANNOTATION_RECONCILE_REQUESTED_AT]: options.requested }
    : {};
  const status = {
    conditions: [condition],
    ...(options.handled ? { lastHandledReconcileAt: options.handled } : {}),
  };
  return managed('Integration', 'i', spec, { annotations, status });
}

describe('standingRefusal', () => {
  it('repeats the refusal recorded for this generation', () => {
    const refusal = standingRefusal(obj(synced(INTEGRATIONS_DEPRECATED)));
    expect(refusal).toMatchObject({ reason: INTEGRATIONS_DEPRECATED, errorClass: 'terminal' });
    expect(refusal?.message).toContain('Secret Syncs');
  });

  it('lets a new generation, another failure or a requested reconcile try again', () => {
    expect(standingRefusal(obj(synced(INTEGRATIONS_DEPRECATED, 0)))).toBeUndefined();
    expect(standingRefusal(obj(synced('ServiceUnavailable')))).toBeUndefined();
    const requested = obj(synced(INTEGRATIONS_DEPRECATED), { requested: 'b', handled: 'a' });
    expect(standingRefusal(requested)).toBeUndefined();
    const handled = obj(synced(INTEGRATIONS_DEPRECATED), { requested: 'b', handled: 'b' });
    expect(standingRefusal(handled)).toBeDefined();
  });
});

describe('isSecretSyncRefusal', () => {
  const forbidden = (message: string) =>
    new ForbiddenError({ operation: 'integrations.create', status: 403, message });

  it('recognises the 403 that points to Secret Syncs, not other refusals', () => {
    expect(isSecretSyncRefusal(forbidden('Please create a Secret Sync instead.'))).toBe(true);
    expect(isSecretSyncRefusal(forbidden('You are not allowed to create on integrations'))).toBe(false);
    expect(isSecretSyncRefusal(new Error('Secret Sync'))).toBe(false);
  });
});
