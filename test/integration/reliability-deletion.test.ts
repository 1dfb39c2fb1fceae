// Deletion safety: deleting Coffer resources never hangs silently. With the service unreachable,
// deletion protection on, or the Connection gone (abandoned by an admin while the resource still
// needed it), the finalizer stays and a condition says why;
// the `coffer.dev/abandon: "true"` annotation lets an admin drop the finalizer and leave the
// service object in place. Orphan and ObserveOnly resources go without calling the service.
// Deleting whole namespaces (with kube-controller-manager's namespace controller) is covered by
// reliability-namespace-deletion.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_EXTERNAL_ID } from '../../src/runtime/object-meta.ts';
import { waitFor } from '../support/kube.ts';
import { startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

const suffix = randomBytes(3).toString('hex');
const abandon = { metadata: { annotations: { 'coffer.dev/abandon': 'true' } } };
let h: OperatorHarness;

function projectSpec(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    connectionRef: { name: 'coffer' },
    name,
    slug: `${name}-${suffix}`,
    deletionPolicy: 'Delete',
    environments: [{ name: 'Development', slug: 'dev' }],
    ...extra,
  };
}

/** Creates a Project, waits until Ready, returns its service id. */
async function readyProject(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  await h.create('Project', name, projectSpec(name, extra));
  const obj = await h.waitForReady('Project', name);
  return obj.status?.id ?? '';
}

/** True when the service still has the project. */
async function serviceHas(id: string): Promise<boolean> {
  try {
    await h.service.projects.get(id);
    return true;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return false;
    throw error;
  }
}

/** Deletes, waits for the condition that explains the wait, then abandons; the object goes. */
async function deleteBlockedThenAbandon(name: string, reason: string, connectionRef?: string) {
  await h.delete('Project', name);
  const blocked = await h.waitForCondition('Project', name, { type: 'Synced', status: 'False', reason });
  expect(blocked.metadata.deletionTimestamp).toBeTruthy();
  expect(blocked.metadata.finalizers).toContain('coffer.dev/finalizer');
  const message = blocked.status?.conditions?.find((c) => c.type === 'Synced')?.message ?? '';
  if (connectionRef) expect(message).toContain(connectionRef);
  await h.patch('Project', name, abandon);
  await h.waitForDeletion('Project', name);
  // Events are recorded after the status write: poll for the one we look for.
  const abandoned = await waitFor(
    async () => (await h.events(name)).some((e) => e.reason === 'AbandonedExternal'),
    { timeoutMs: 30_000, message: 'the AbandonedExternal event' },
  ).catch(() => false);
  expect(abandoned).toBe(true);
  return message;
}

beforeAll(async () => {
  h = await startOperatorHarness({ logLevel: 'info' });
});

afterAll(async () => {
  h.devserver.faults.update({ dropRatio: 0, errorRatio: 0 });
  await h?.stop();
});

describe('deletion safety', () => {
  it('explains a deletion while the service is unreachable, and lets an admin abandon it', async () => {
    const id = await readyProject('unreachable');
    h.devserver.faults.update({ dropRatio: 1 });
    try {
      const message = await deleteBlockedThenAbandon('unreachable', 'ServiceUnreachable');
      expect(message).toContain('cannot delete');
    } finally {
      h.devserver.faults.update({ dropRatio: 0 });
    }
    expect(await serviceHas(id)).toBe(true);
  });

  it('explains a deletion the service refuses (deletion protection) as DeletionBlocked', async () => {
    const id = await readyProject('protected', { hasDeleteProtection: true });
    const message = await deleteBlockedThenAbandon('protected', 'DeletionBlocked');
    expect(message).toContain('coffer.dev/abandon');
    expect(await serviceHas(id)).toBe(true);
  });

  it('explains a deletion whose Connection is gone', async () => {
    await h.createSecret('spare-token', { token: h.admin.token });
    await h.create('Connection', 'spare', {
      url: h.url,
      auth: { token: { secretRef: { name: 'spare-token', key: 'token' } } },
    });
    await h.waitForReady('Connection', 'spare');
    const id = await readyProject('orphaned-connection', { connectionRef: { name: 'spare' } });
    // A Connection waits for the resources that use it; an admin can make it go anyway.
    await h.delete('Connection', 'spare');
    await h.waitForCondition('Connection', 'spare', {
      type: 'Ready',
      status: 'False',
      reason: 'DeletionWaiting',
    });
    await h.patch('Connection', 'spare', abandon);
    await h.waitForDeletion('Connection', 'spare');
    await deleteBlockedThenAbandon('orphaned-connection', 'ReferenceNotReady', 'Connection spare');
    expect(await serviceHas(id)).toBe(true);
  });

  it('deletes with policy Delete when the service answers', async () => {
    const id = await readyProject('deleted');
    await h.delete('Project', 'deleted');
    await h.waitForDeletion('Project', 'deleted');
    expect(await serviceHas(id)).toBe(false);
  });

  /** Deletes with the service unreachable; resolves once the object is gone. */
  async function deleteWhileUnreachable(name: string): Promise<void> {
    h.devserver.faults.update({ dropRatio: 1 });
    try {
      await h.delete('Project', name);
      await h.waitForDeletion('Project', name);
    } finally {
      h.devserver.faults.update({ dropRatio: 0 });
    }
  }

  it('lets an Orphan resource go at once, even with the service unreachable', async () => {
    const id = await readyProject('orphan', { deletionPolicy: 'Orphan' });
    await deleteWhileUnreachable('orphan');
    expect(await serviceHas(id)).toBe(true);
  });

  it('lets an ObserveOnly resource go at once, even with the service unreachable', async () => {
    const slug = `observed-${suffix}`;
    const existing = await h.service.projects.create({ projectName: 'Observed', slug });
    await h.create(
      'Project',
      'observed',
      { ...projectSpec('observed'), slug, managementPolicy: 'ObserveOnly' },
      { annotations: { [ANNOTATION_EXTERNAL_ID]: existing.id } },
    );
    const obj = await h.waitForReady('Project', 'observed');
    expect(obj.status?.id).toBe(existing.id);
    await deleteWhileUnreachable('observed');
    expect(await serviceHas(existing.id)).toBe(true);
  });
});
