// Instant updates from project events: a value changed directly in the devserver is restored
// within 2 s while the project's event stream is Active, and only on the poll when the service
// refuses the stream (429: the identity already holds the maximum number of streams on that
// project). Each SecretBatch uses a one-hour poll interval, so only an event can explain a quick
// restore.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSubscription } from '../../src/client/index.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { projectEventHub } from '../../src/controllers/project-events/index.ts';
import { secretBatchController } from '../../src/controllers/secret-batch/index.ts';
import { waitFor } from '../support/kube.ts';
import {
  HARNESS_CONNECTION,
  startOperatorHarness,
  type CofferObject,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
const connectionRef = { name: HARNESS_CONNECTION };
const held: EventSubscription[] = [];
const ids: Record<string, string> = {};

async function project(name: string): Promise<string> {
  await h.create('Project', name, {
    connectionRef,
    name,
    slug: `${name}-${randomBytes(3).toString('hex')}`,
    environments: [{ name: 'Development', slug: 'dev' }],
    deletionPolicy: 'Delete',
  });
  return (await h.waitForReady('Project', name)).status?.id ?? '';
}

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [projectController, secretBatchController] } });
  ids.live = await project('live');
  ids.crowded = await project('crowded');
  // The harness Connection uses the same identity: with 5 streams held, the service refuses a 6th.
  const register = [{ event: 'secret:update' as const }];
  for (let i = 0; i < 5; i += 1)
    held.push(await h.service.events.subscribe({ projectId: ids.crowded, register }));
});

afterAll(async () => {
  for (const stream of held) stream.close();
  await h?.stop();
});

const batch = (projectName: string) => ({
  connectionRef,
  projectRef: { name: projectName },
  environment: 'dev',
  secretPath: '/',
  pollInterval: '1h',
  secrets: [{ key: 'FEATURE_FLAG', value: 'on' }],
});

async function stored(projectId: string): Promise<string | undefined> {
  const { secrets } = await h.service.secrets.list({
    workspaceId: projectId,
    environment: 'dev',
    secretPath: '/',
  });
  return secrets.find((s) => s.secretKey === 'FEATURE_FLAG')?.secretValue;
}

async function tamper(projectId: string): Promise<void> {
  await h.service.secrets.update('FEATURE_FLAG', {
    workspaceId: projectId,
    environment: 'dev',
    secretPath: '/',
    secretValue: 'off',
  });
}

function eventsState(obj: CofferObject | undefined): { state?: string; reason?: string; message?: string } {
  return obj?.status?.events ?? {};
}

async function waitForEvents(name: string, state: string): Promise<CofferObject> {
  return waitFor(
    async () => {
      const obj = await h.get('SecretBatch', name);
      return eventsState(obj).state === state ? obj : undefined;
    },
    { timeoutMs: 30_000, message: `SecretBatch ${name} events ${state}` },
  );
}

describe('project events', () => {
  it('restores a change made in the service within 2 s while the stream is Active', async () => {
    await h.create('SecretBatch', 'live', batch('live'));
    await h.waitForReady('SecretBatch', 'live');
    await waitForEvents('live', 'Active');
    await tamper(ids.live ?? '');
    await waitFor(async () => (await stored(ids.live ?? '')) === 'on', {
      timeoutMs: 2_000,
      intervalMs: 50,
      message: 'the value restored by the event',
    });
    const obj = await waitFor(async () => {
      const current = await h.get('SecretBatch', 'live');
      return current?.status?.driftCorrections === 1 ? current : undefined;
    });
    expect(eventsState(obj).state).toBe('Active');
  });

  it('falls back to the poll when the service refuses the stream, and says so in status', async () => {
    await h.create('SecretBatch', 'crowded', batch('crowded'));
    await h.waitForReady('SecretBatch', 'crowded');
    const obj = await waitForEvents('crowded', 'Unavailable');
    expect(eventsState(obj)).toMatchObject({ reason: 'TooManyStreams' });
    expect(eventsState(obj).message).toContain('poll interval');
    await tamper(ids.crowded ?? '');
    // Nothing reacts before the poll: the value stays changed even after a later change in the
    // live project has come through its stream and been restored...
    await tamper(ids.live ?? '');
    await waitFor(async () => (await stored(ids.live ?? '')) === 'on', {
      timeoutMs: 10_000,
      intervalMs: 50,
      message: 'the later change in the live project restored by its event',
    });
    expect(await stored(ids.crowded ?? '')).toBe('off');
    // ...until the poll (requested now instead of waiting an hour) restores it.
    await h.requestReconcile('SecretBatch', 'crowded');
    await waitFor(async () => (await stored(ids.crowded ?? '')) === 'on', { timeoutMs: 15_000 });
  });

  it('opens one stream per connection and project in use', async () => {
    await h.create('SecretBatch', 'live-two', { ...batch('live'), secretPath: '/two' });
    await h.waitForReady('SecretBatch', 'live-two');
    await waitForEvents('live-two', 'Active');
    // Two folders of one project share its stream; the crowded project has its own.
    expect(projectEventHub(h.operator.services, 'SecretBatch').streamCount).toBe(2);
    // The service allows 5 streams per identity and project: the operator holds at most one, so
    // 4 more open (and the operator's stays Active).
    const register = [{ event: 'secret:update' as const }];
    const probes: EventSubscription[] = [];
    try {
      for (let i = 0; i < 4; i += 1)
        probes.push(await h.service.events.subscribe({ projectId: ids.live ?? '', register }));
      expect(probes).toHaveLength(4);
    } finally {
      for (const probe of probes) probe.close();
    }
    expect(eventsState(await h.get('SecretBatch', 'live-two')).state).toBe('Active');
  });
});
