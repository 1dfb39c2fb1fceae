// Crash safety: `coffer operator` as a separate process, SIGKILLed again and again while it
// creates 100 resources (× COFFER_CHAOS_SCALE: `npm run test:chaos` runs 1,000) (Projects, and Identities, whose names the service does not keep unique,
// so a create retried blindly after a crash would leave a duplicate). After a final restart every
// resource is Ready, and the devserver holds exactly one object per resource — the one recorded
// in its status — with nothing leaked.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectedControlPlane, waitFor } from '../support/kube.ts';
import { HARNESS_TOKEN_SECRET, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';
import {
  newProcessDir,
  removeProcessDir,
  startOperatorProcess,
  type OperatorProcess,
} from '../support/processes.ts';

/** `npm run test:chaos` sets 10 (1,000 creates); CI runs the small version. */
const scale = chaosScale(process.env.COFFER_CHAOS_SCALE);
const projects = 60 * scale;
const identities = 40 * scale;
const total = projects + identities;
const kills = 10;
const suffix = randomBytes(3).toString('hex');

let h: OperatorHarness;
let dir: string;
let operator: OperatorProcess | undefined;

const projectNames = Array.from({ length: projects }, (_, i) => `crash-p${i}`);
const identityNames = Array.from({ length: identities }, (_, i) => `crash-i${i}`);

beforeAll(async () => {
  // The harness supplies the CRDs, a namespace, a bootstrapped devserver and kube helpers; its
  // in-process operator runs no controllers: the operator under test is the child process.
  h = await startOperatorHarness({ connection: false, operator: { kinds: [], directKinds: [] } });
  dir = newProcessDir('coffer-crash-');
  await h.createSecret(HARNESS_TOKEN_SECRET, { token: h.admin.token });
  await h.create('Connection', 'coffer', {
    url: h.url,
    auth: { token: { secretRef: { name: HARNESS_TOKEN_SECRET, key: 'token' } } },
  });
});

afterAll(async () => {
  await operator?.kill();
  await h?.stop();
  if (dir) removeProcessDir(dir);
});

function startOperator(run: number): Promise<OperatorProcess> {
  return startOperatorProcess({
    kubeconfigPath: injectedControlPlane().kubeconfigPath,
    dir,
    name: `operator-${run}`,
    namespaces: [h.namespace],
  });
}

async function createAll(): Promise<void> {
  const creates = [
    ...projectNames.map((name) =>
      h.create('Project', name, {
        connectionRef: { name: 'coffer' },
        name,
        slug: `${name}-${suffix}`,
        environments: [{ name: 'Development', slug: 'dev' }],
      }),
    ),
    ...identityNames.map((name) =>
      h.create('Identity', name, { connectionRef: { name: 'coffer' }, name: `${name}-${suffix}` }),
    ),
  ];
  await Promise.all(creates);
}

/** Every service project and identity of the organization, as `name → ids`. */
async function serviceObjects(): Promise<{
  projects: Map<string, string[]>;
  identities: Map<string, string[]>;
}> {
  const response = await fetch(`${h.url}/api/v1/workspace`, {
    headers: { authorization: `Bearer ${h.admin.token}` },
  });
  const body = (await response.json()) as { workspaces: { id: string; slug: string }[] };
  const group = (pairs: [string, string][]) => {
    const map = new Map<string, string[]>();
    for (const [key, id] of pairs) map.set(key, [...(map.get(key) ?? []), id]);
    return map;
  };
  const ids = await h.service.identities.list(h.admin.organizationId);
  return {
    projects: group(body.workspaces.map((p) => [p.slug, p.id])),
    identities: group(ids.map((i) => [i.name, i.id])),
  };
}

/** Resources that do not have exactly one service object, the one recorded in their status. */
async function mismatched(kind: string, names: readonly string[], byName: Map<string, string[]>) {
  const out: string[] = [];
  for (const name of names) {
    const ids = byName.get(`${name}-${suffix}`) ?? [];
    const recorded = (await h.get(kind, name))?.status?.id;
    if (ids.length !== 1 || ids[0] !== recorded) out.push(`${kind} ${name}: ${ids.length} in the service`);
  }
  return out;
}

function chaosScale(value: string | undefined): number {
  const n = Number(value ?? '1');
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`COFFER_CHAOS_SCALE must be a positive integer, got ${value}`);
  return n;
}

describe('crash safety', () => {
  it(
    `survives repeated SIGKILLs while creating ${total} resources`,
    async () => {
      const writesAtKill: number[] = [];
      operator = await startOperator(0);
      let writesAtStart = h.devserver.stats.writes.total;
      await createAll();
      for (let run = 1; run <= kills; run++) {
        // Kill at a random point of the work: once this replica made its first service write
        // (a fixed delay would miss the work when the operator is fast), or when it has none left.
        await operator.waitForLog('controllers started', 60_000);
        const since = writesAtStart;
        await waitFor(() => h.devserver.stats.writes.total > since, {
          timeoutMs: 5_000,
          intervalMs: 5,
        }).catch(() => undefined);
        await sleep(Math.floor(Math.random() * 300));
        await operator.kill();
        writesAtKill.push(h.devserver.stats.writes.total);
        writesAtStart = h.devserver.stats.writes.total;
        operator = await startOperator(run);
      }
      console.log(
        `[crash] ${kills} SIGKILLs; service writes so far at each kill: ${writesAtKill.join(', ')}`,
      );
      const started = Date.now();
      for (const name of projectNames) await h.waitForReady('Project', name, { timeoutMs: 180_000 });
      for (const name of identityNames) await h.waitForReady('Identity', name, { timeoutMs: 180_000 });
      console.log(
        `[crash] all ${total} Ready ${((Date.now() - started) / 1000).toFixed(1)} s after the last restart`,
      );
      // The kills really interrupted work: some writes happened before the last kill, some after.
      expect(writesAtKill[0]).toBeLessThan(h.devserver.stats.writes.total);
    },
    600_000 * scale,
  );

  it(
    'leaves exactly one service object per resource, the one in its status',
    async () => {
      const found = await serviceObjects();
      const mismatches = [
        ...(await mismatched('Project', projectNames, found.projects)),
        ...(await mismatched('Identity', identityNames, found.identities)),
      ];
      expect(mismatches).toEqual([]);
      const ours = (keys: Iterable<string>) => [...keys].filter((k) => k.endsWith(`-${suffix}`)).length;
      expect(ours(found.projects.keys())).toBe(projects);
      expect(ours(found.identities.keys())).toBe(identities);
    },
    60_000 * scale,
  );
});
