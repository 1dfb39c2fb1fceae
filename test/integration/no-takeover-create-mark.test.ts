/**
 * A manifest may set `coffer.dev/create-pending`, the annotation Coffer uses to recover its own
 * interrupted create; only the operator's half of the mark in status makes it one. A forged
 * annotation meets the no-adoption rule: no take-over, and no deletion of a foreign object.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityController } from '../../src/controllers/identity/index.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import {
  ANNOTATION_CREATE_PENDING,
  ANNOTATION_EXTERNAL_ID,
  ANNOTATION_PAUSED,
  FINALIZER,
} from '../../src/runtime/object-meta.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
const suffix = randomBytes(3).toString('hex');
const connectionRef = { name: HARNESS_CONNECTION };
const slug = (base: string) => `${base}-${suffix}`;

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [projectController, identityController] } });
});

afterAll(async () => {
  await h?.stop();
});

const refused = (kind: string, name: string, reason: string) =>
  h.waitForCondition(kind, name, { type: 'Synced', status: 'False', reason });

/** Deletes the resource and waits until it is gone. */
async function deleteResource(kind: string, name: string): Promise<void> {
  await h.delete(kind, name);
  await h.waitForDeletion(kind, name);
}

describe('a forged create-pending mark', () => {
  const forged = { [ANNOTATION_CREATE_PENDING]: '2000-01-01T00:00:00Z' };

  it('does not make a Project take over a project made outside Coffer', async () => {
    const victim = await h.service.projects.create({
      projectName: 'Made elsewhere',
      slug: slug('forged'),
      shouldCreateDefaultEnvs: false,
    });
    await h.create(
      'Project',
      'forged',
      { connectionRef, name: 'Renamed by a manifest', slug: slug('forged'), deletionPolicy: 'Delete' },
      { annotations: forged },
    );
    const obj = await refused('Project', 'forged', 'AlreadyExists');
    const synced = obj.status?.conditions?.find((c) => c.type === 'Synced')?.message ?? '';
    expect(synced).toContain(`${ANNOTATION_EXTERNAL_ID}: "${victim.id}"`);
    expect(synced).toContain(`${ANNOTATION_CREATE_PENDING} annotation does not make it`);
    expect(obj.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBeUndefined();
    await deleteResource('Project', 'forged');
    expect((await h.service.projects.get(victim.id)).name).toBe('Made elsewhere');
  });

  it('does not make a deleted Identity delete an identity made outside Coffer', async () => {
    const victim = await h.service.identities.create({
      name: slug('forged-bot'),
      organizationId: h.admin.organizationId,
    });
    // The manifest brings Coffer's finalizer itself and stays paused until it is deleted, so the
    // first thing the operator does with it is the deletion.
    const { group, version, plural } = { group: 'coffer.dev', version: 'v1alpha1', plural: 'identities' };
    await h.custom.createNamespacedCustomObject({
      group,
      version,
      plural,
      namespace: h.namespace,
      body: {
        apiVersion: `${group}/${version}`,
        kind: 'Identity',
        metadata: {
          name: 'forged-bot',
          finalizers: [FINALIZER],
          annotations: { ...forged, [ANNOTATION_PAUSED]: 'true' },
        },
        spec: { connectionRef, name: slug('forged-bot'), deletionPolicy: 'Delete' },
      },
    });
    await refused('Identity', 'forged-bot', 'Paused');
    await h.delete('Identity', 'forged-bot');
    await h.patch('Identity', 'forged-bot', { metadata: { annotations: { [ANNOTATION_PAUSED]: null } } });
    await h.waitForDeletion('Identity', 'forged-bot');
    expect((await h.service.identities.get(victim.id)).name).toBe(slug('forged-bot'));
  });
});
