// A service 4xx is a client error: a SecretBatch whose write exceeds the service's body limit
// (a devserver with a small limit answers 413 in the service's error shape) ends Synced=False
// reason TooLarge, is not retried while nothing changes, names no value, and recovers once its
// source Secret shrinks. Real control plane, real devserver over HTTP.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectController } from '../../src/controllers/project/index.ts';
import { secretBatchController } from '../../src/controllers/secret-batch/index.ts';
import { waitForOperatorIdle } from '../support/idle.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

/** The devserver's body limit here; the real service's (Fastify's default) is 1 MiB. */
const bodyLimitBytes = 8 * 1024;
const connectionRef = { name: HARNESS_CONNECTION };
/** Recognisable value text: none may appear in status, events or logs. */
const marker = `tl${randomBytes(6).toString('hex')}`;

let h: OperatorHarness;

beforeAll(async () => {
  h = await startOperatorHarness({
    devserver: { maxBodyBytes: bodyLimitBytes },
    operator: { kinds: [projectController, secretBatchController] },
  });
  await h.create('Project', 'big', {
    connectionRef,
    name: 'Big',
    slug: `big-${randomBytes(3).toString('hex')}`,
    environments: [{ name: 'Development', slug: 'dev' }],
    deletionPolicy: 'Delete',
  });
  await h.waitForReady('Project', 'big');
});

afterAll(async () => {
  await h?.stop();
});

function tooLargeAnswers(): number {
  return h.devserver.stats.requests.byStatus['413'] ?? 0;
}

describe('service client errors', () => {
  it('reports a write over the body limit as TooLarge, terminal, without the value', async () => {
    await h.createSecret('huge', { blob: marker.repeat(Math.ceil((2 * bodyLimitBytes) / marker.length)) });
    await h.create('SecretBatch', 'huge', {
      connectionRef,
      projectRef: { name: 'big' },
      environment: 'dev',
      secretPath: '/',
      secrets: [{ key: 'BLOB', valueFrom: { secretKeyRef: { name: 'huge', key: 'blob' } } }],
    });
    const failed = await h.waitForCondition('SecretBatch', 'huge', {
      type: 'Synced',
      status: 'False',
      reason: 'TooLarge',
    });
    const message = failed.status?.conditions?.find((c) => c.type === 'Synced')?.message ?? '';
    expect(message).toContain('413');
    expect(message).toContain('split');
    expect(JSON.stringify(failed)).not.toContain(marker);

    // Terminal: a transient error would be retried within milliseconds (backoff starts at 5 ms),
    // so the operator would not be idle until its retries were seconds apart, each one a 413.
    // One 413 for the write, at most one more when the project's event stream opened during that
    // reconcile (an open makes the batch read and write again).
    await waitForOperatorIdle(h.operator);
    const answered = tooLargeAnswers();
    expect(answered).toBeGreaterThanOrEqual(1);
    expect(answered).toBeLessThanOrEqual(2);

    const events = await h.events('huge');
    expect(events.some((e) => e.type === 'Warning' && e.message?.includes('413'))).toBe(true);
    expect(JSON.stringify(events.map((e) => e.message))).not.toContain(marker);
    expect(h.logs()).not.toContain(marker);
  });

  it('syncs once the source Secret fits the limit again', async () => {
    await h.createSecret('huge', { blob: 'small' });
    await h.waitForReady('SecretBatch', 'huge');
    const { secrets } = await h.service.secrets.list({
      workspaceId: (await h.get('Project', 'big'))?.status?.id,
      environment: 'dev',
      secretPath: '/',
    });
    expect(secrets.map((s) => [s.secretKey, s.secretValue])).toEqual([['BLOB', 'small']]);
  });
});
