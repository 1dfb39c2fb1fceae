/**
 * The cases beside each generated health check, in Argo CD's own layout:
 * resource_customizations/coffer.dev/<Kind>/health_test.yaml lists `{ healthStatus: { status,
 * message }, inputPath: testdata/<case>.yaml }`, and each testdata object is one a live resource
 * of the integration tests was in, made stable (no uid, resourceVersion, managedFields or
 * creationTimestamp; the run's namespace, name suffix, devserver URL, ids, hashes, long hex
 * strings, times and the wording of a dropped connection replaced by fixed values). A case is named by its verdict and the reason the operator set, e.g.
 * `progressing_credentialsNotFound`.
 *
 * With `COFFER_ARGOCD_CAPTURE=1` (`npm run capture:argocd`) a test file rewrites the cases of the
 * kinds it drove. Otherwise every live state must match its committed case: the case exists, its
 * object has the live object's shape (conditions, paused, deleting, observed generation) and its
 * expected status is the live verdict; a committed case no live state matches is reported too.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parse, stringify } from 'yaml';
import { argocdDir, healthInLua54, type Health } from './argocd-health.ts';

/** Whether this run rewrites the committed cases. */
export const capturing = process.env.COFFER_ARGOCD_CAPTURE === '1';

/** The run-specific values a testdata object must not carry. */
export interface RunValues {
  readonly namespace: string;
  readonly suffix?: string;
  readonly devserverUrl: string;
}

type Json = Record<string, unknown>;

const fixedTime = '2026-01-01T00:00:00Z';
/** Times, with the random suffix a reconcile request carries after one. */
const timePattern = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z(?:-[0-9a-f]+)?/g;
const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** The socket's own words for a dropped connection, which differ from run to run. */
const networkErrorPattern = /network error: [^"\\]*/g;
/** Serial numbers, hashes: long hex strings a run draws at random. */
const hexPattern = /\b[0-9a-f]{16,}\b/g;
/** Fields holding a hash of content the run made up. */
const hashField = /hash$/i;
/** YAML 1.1 quoting (as Argo CD's Go YAML reads it): times, "True", "on" stay strings. */
const yamlOptions = { lineWidth: 0, version: '1.1' } as const;
const droppedMetadata = ['uid', 'resourceVersion', 'managedFields', 'creationTimestamp', 'selfLink'];

/** `obj` without what differs from run to run (see the module comment). */
export function stableObject(obj: unknown, run: RunValues): Json {
  let text = JSON.stringify(obj)
    .replaceAll(run.devserverUrl, 'https://coffer.example.com')
    .replaceAll(run.namespace, 'coffer-demo');
  if (run.suffix) text = text.replaceAll(run.suffix, 'demo');
  const ids = new Map<string, string>();
  text = text
    .replace(uuidPattern, (id) => {
      const known = ids.get(id) ?? `00000000-0000-4000-8000-${String(ids.size + 1).padStart(12, '0')}`;
      ids.set(id, known);
      return known;
    })
    .replace(timePattern, fixedTime)
    .replace(networkErrorPattern, 'network error: other side closed')
    .replace(hexPattern, (hex) => '0'.repeat(hex.length));
  const stable = JSON.parse(text, (key, value: unknown) =>
    hashField.test(key) && typeof value === 'string' ? '0' : value,
  ) as Json & { metadata?: Json };
  for (const field of droppedMetadata) delete stable.metadata?.[field];
  return stable;
}

/** A case's name: the verdict and the reason, e.g. `degraded_alreadyExists`. */
export function caseName(verdict: Health, reason: string): string {
  return `${verdict.status.toLowerCase()}_${reason.charAt(0).toLowerCase()}${reason.slice(1)}`;
}

interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
}

type Shaped = Json & {
  metadata?: { annotations?: Record<string, string>; deletionTimestamp?: string; generation?: number };
  status?: { conditions?: Condition[]; observedGeneration?: number };
};

/** What a health check reads of an object: its conditions, paused, deleting, generation observed. */
export function caseShape(obj: Json): Json {
  const { metadata, status } = obj as Shaped;
  return {
    conditions: (status?.conditions ?? []).map(({ type, status: s, reason }) => ({
      type,
      status: s,
      reason,
    })),
    paused: metadata?.annotations?.['coffer.dev/paused'] === 'true',
    deleting: metadata?.deletionTimestamp !== undefined,
    observed: (status?.observedGeneration ?? 0) >= (metadata?.generation ?? 0),
  };
}

/** One entry of health_test.yaml. */
interface HealthTest {
  readonly healthStatus: Health;
  readonly inputPath: string;
}

interface Captured {
  readonly obj: Json;
  readonly expected: Health;
}

function readTests(kind: string): HealthTest[] {
  const text = readFileSync(join(argocdDir, kind, 'health_test.yaml'), 'utf8');
  return (parse(text) as { tests: HealthTest[] }).tests;
}

function nameOf(obj: Json): string {
  return String((obj as { metadata?: { name?: string } }).metadata?.name ?? '');
}

/** The live states of one test file's kinds: checked against, or captured into, the committed cases. */
export class HealthCases {
  private readonly seen = new Map<string, Map<string, Captured>>();
  private readonly run: () => RunValues;

  /** `run` gives the run-specific values once the harness is up. */
  constructor(run: () => RunValues) {
    this.run = run;
  }

  /**
   * Records the live `obj` of `kind` in the state the operator marked with `reason`, on which
   * Argo CD's VM gave `verdict`; outside capture, checks it against the committed case.
   */
  record(kind: string, obj: unknown, verdict: Health, reason: string): void {
    const stable = stableObject(obj, this.run());
    const [expected] = healthInLua54(kind, [stable]);
    expect(expected?.status, `${kind}: the stable object keeps its verdict`).toBe(verdict.status);
    const name = caseName(verdict, reason);
    const cases = this.seen.get(kind) ?? new Map<string, Captured>();
    this.seen.set(kind, cases);
    const earlier = cases.get(name);
    if (!earlier || nameOf(stable) < nameOf(earlier.obj))
      cases.set(name, { obj: stable, expected: expected! });
    if (!capturing) this.check(kind, name, stable, expected!);
  }

  private check(kind: string, name: string, stable: Json, expected: Health): void {
    const hint = `${kind} ${name}: run npm run capture:argocd`;
    const test = readTests(kind).find((t) => t.inputPath === `testdata/${name}.yaml`);
    expect(test, `${hint} (no committed case)`).toBeDefined();
    const committed = parse(readFileSync(join(argocdDir, kind, test!.inputPath), 'utf8')) as Json;
    expect(caseShape(committed), `${hint} (its object has another shape)`).toEqual(caseShape(stable));
    expect(test!.healthStatus.status, hint).toBe(expected.status);
    if (nameOf(committed) === nameOf(stable)) expect(test!.healthStatus, hint).toEqual(expected);
  }

  /** The committed cases of the recorded kinds that no live state matched (empty after a capture). */
  unseen(): string[] {
    return [...this.seen].flatMap(([kind, cases]) =>
      readTests(kind)
        .map((test) => test.inputPath.replace(/^testdata\/|\.yaml$/g, ''))
        .filter((name) => !cases.has(name))
        .map((name) => `${kind}/${name}`),
    );
  }

  /** In capture mode, rewrites health_test.yaml and testdata/ of every recorded kind. */
  write(): void {
    if (!capturing) return;
    for (const [kind, cases] of this.seen) writeKind(kind, cases);
  }
}

function writeKind(kind: string, cases: ReadonlyMap<string, Captured>): void {
  const dir = join(argocdDir, kind);
  rmSync(join(dir, 'testdata'), { recursive: true, force: true });
  mkdirSync(join(dir, 'testdata'), { recursive: true });
  const names = [...cases.keys()].sort();
  for (const name of names)
    writeFileSync(join(dir, 'testdata', `${name}.yaml`), stringify(cases.get(name)!.obj, yamlOptions));
  const tests = names.map((name) => ({
    healthStatus: cases.get(name)!.expected,
    inputPath: `testdata/${name}.yaml`,
  }));
  const header = '# Captured from live objects by `npm run capture:argocd`. Do not edit.\n';
  writeFileSync(join(dir, 'health_test.yaml'), header + stringify({ tests }, yamlOptions));
}

/** The kinds that have a folder of cases. */
export function kindsWithCases(): string[] {
  return readdirSync(argocdDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}
