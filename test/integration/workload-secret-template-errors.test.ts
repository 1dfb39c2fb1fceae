// WorkloadSecret template errors never show a value, on the real control plane and a devserver
// over HTTP. The service holds canary values; one WorkloadSecret per error path renders them —
// a tag that would read a file named by a value, a lookup keyed by a value, filter errors on
// values, b64dec of bytes that are not UTF-8, an expression Liquid parses from a value at run
// time, an undefined variable, the time, memory and output limits, a parse error — and each ends
// in Synced=False TemplateError naming its key and position. Then a sweep asserts that no canary,
// plain or base64, appears in status, events or the operator's log (debug level). A templated
// WorkloadSecret that delivers the canaries shows they are real values the operator read.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workloadSecretKind } from '../../src/api/v1alpha1/index.ts';
import { waitFor } from '../support/kube.ts';
import { leaksOf, visibleRecords } from '../support/leaks.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

/** Every canary value, by label (never printed). */
const canaries = new Map<string, string>();
const canary = (label: string) => {
  const value = `canary-${label}-${randomBytes(12).toString('hex')}`;
  canaries.set(label, value);
  return value;
};

/** Bytes that are not UTF-8 (a lone 0xff) around a canary, in base64. */
function base64NotUtf8(): string {
  const inner = canary('inside-bad-utf8');
  const value = Buffer.concat([Buffer.from([0xff]), Buffer.from(inner)]).toString('base64');
  canaries.set('bad-utf8 (base64)', value);
  return value;
}

let h: OperatorHarness;

beforeAll(async () => {
  h = await startOperatorHarness({ logLevel: 'debug', operator: { kinds: [] } });
  const project = await h.service.projects.create({
    projectName: 'template errors',
    slug: `template-errors-${randomBytes(3).toString('hex')}`,
  });
  const values = {
    SECRET: canary('secret'),
    KEY_NAME: canary('key-name'),
    JSON_BROKEN: `{"password": "${canary('json-broken')}"`,
    JSON_OK: `{"password": "${canary('json-ok')}"}`,
    LIST_JSON: `[{"password": "${canary('list-item')}"}]`,
    EXPRESSION: `${canary('expression')} ==`,
    BAD_UTF8: base64NotUtf8(),
  };
  canaries.set('json-broken (whole)', values.JSON_BROKEN);
  canaries.set('json-ok (whole)', values.JSON_OK);
  await h.service.secrets.batchUpdate({
    workspaceId: project.id,
    environment: 'dev',
    secretPath: '/',
    mode: 'upsert',
    secrets: Object.entries(values).map(([secretKey, secretValue]) => ({ secretKey, secretValue })),
  });
  source = { projectId: project.id, environment: 'dev', secretPath: '/' };
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

let source: Record<string, string> = {};

/**
 * Each error path: its template (key `app.conf`, the failing part on line 2) and the message the
 * Synced condition must show exactly (a RegExp where the position or a limit's wording may vary).
 */
const cases: Record<string, { template: string; message: string | RegExp }> = {
  'include-variable': {
    template: 'a: 1\n{% include KEY_NAME %}',
    message: 'line 2 column 1: include, render and layout are not available',
  },
  'render-tag': {
    template: 'a: 1\n{% render SECRET %}',
    message: 'line 2 column 1: include, render and layout are not available',
  },
  'lookup-by-value': {
    template: 'a: 1\nb: {{ secrets[KEY_NAME] }}',
    message: 'line 2 column 7: undefined variable: secrets[KEY_NAME]',
  },
  'lookup-in-json-by-value': {
    template: '{% assign j = JSON_OK | fromJson %}\nb: {{ j[SECRET].x }}',
    message: 'line 2 column 7: undefined variable: j[SECRET].x',
  },
  'undefined-variable': {
    template: 'a: 1\nb: {{ NOT_A_KEY }}',
    message: 'line 2 column 7: undefined variable: NOT_A_KEY',
  },
  'fromjson-of-canary': {
    template: 'a: 1\nb: {{ JSON_BROKEN | fromJson }}',
    message: 'line 2 column 4: fromJson: the input is not valid JSON',
  },
  'b64dec-of-canary': {
    template: 'a: 1\nb: {{ SECRET | b64dec }}',
    message: 'line 2 column 4: b64dec: the input is not base64',
  },
  'b64dec-not-utf8': {
    template: 'a: 1\nb: {{ BAD_UTF8 | b64dec }}',
    message: 'line 2 column 4: b64dec: the decoded bytes are not UTF-8 text',
  },
  'pem-of-canary': {
    template: 'a: 1\nb: {{ SECRET | pemPrivateKey }}',
    message: 'line 2 column 4: pemPrivateKey: the input holds no PEM private key',
  },
  'expression-from-value': {
    template: '{% assign l = LIST_JSON | fromJson %}\nb: {{ l | where_exp: "item", EXPRESSION }}',
    message:
      /^line 2 column 4: (cannot render|undefined variable:) \{\{ l \| where_exp: "item", EXPRESSION \}\}$/,
  },
  'time-limit': {
    template:
      'a: 1\n{% for i in (1..100000) %}{% for j in (1..100000) %}{% if SECRET == j %}{% endif %}{% endfor %}{% endfor %}',
    message: /^(line 2 column \d+: )?time limit exceeded \(1000 ms for the templates of a WorkloadSecret\)$/,
  },
  'memory-limit': {
    template:
      'a: 1\n{% assign s = SECRET %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
    message: /^(line 2 column \d+: )?memory limit exceeded \(16 MiB\)$/,
  },
  'output-limit': {
    // A 80 KiB string written 20 times: the cap is met in a few writes, well within the time.
    template:
      'a: 1\n{% assign s = SECRET %}{% for i in (1..11) %}{% assign s = s | append: s %}{% endfor %}{% for i in (1..20) %}{{ s }}{% endfor %}',
    message: /^line 2 column \d+: output size limit exceeded \(1 MiB\)$/,
  },
  'parse-error': {
    template: 'a: 1\n{% if SECRET %}b: {{ SECRET }}',
    message: 'line 2 column 1: tag {% if SECRET %} not closed',
  },
};

/** `text` with every canary replaced by its label, so a failing assertion prints no value. */
function redacted(text: string): string {
  let out = text;
  for (const [label, value] of canaries) out = out.replaceAll(value, `<canary ${label}>`);
  return out;
}

function conditionMessage(obj: { status?: { conditions?: { type: string; message?: string }[] } }) {
  return obj.status?.conditions?.find((c) => c.type === 'Synced')?.message ?? '';
}

describe('template errors', () => {
  it('delivers the canaries with a template (the values are real and were read)', async () => {
    await h.create('WorkloadSecret', 'delivers', {
      connectionRef: { name: HARNESS_CONNECTION },
      sources: [source],
      target: { secret: {} },
      template: { data: { out: '{{ SECRET }}/{{ secrets[KEY_NAME] | default: "none" }}' } },
    });
    await h.waitForReady('WorkloadSecret', 'delivers');
    // Compared as a boolean, so a failure never prints a value.
    expect((await h.readSecret('delivers'))?.out === `${canaries.get('secret')}/none`).toBe(true);
  });

  it('ends every error path in TemplateError with its key and position', async () => {
    for (const [name, { template }] of Object.entries(cases))
      await h.create('WorkloadSecret', name, {
        connectionRef: { name: HARNESS_CONNECTION },
        sources: [source],
        target: { secret: {} },
        template: { data: { 'app.conf': template } },
      });
    for (const [name, { message }] of Object.entries(cases)) {
      const failed = await h.waitForCondition('WorkloadSecret', name, {
        type: 'Synced',
        status: 'False',
        reason: 'TemplateError',
      });
      const prefix = 'template of key "app.conf", ';
      const shown = redacted(conditionMessage(failed));
      expect(shown.startsWith(prefix), `${name}: ${shown}`).toBe(true);
      if (typeof message === 'string') expect(shown.slice(prefix.length), name).toBe(message);
      else expect(shown.slice(prefix.length), name).toMatch(message);
      expect(await h.readSecret(name)).toBeUndefined();
    }
  }, 120_000);
});

describe('the sweep', () => {
  it('reads the streams the errors went to', async () => {
    // Booleans, so a failure never prints the captured text.
    const seen = await waitFor(
      async () => {
        const { events } = await visibleRecords(h, [workloadSecretKind]);
        const failures = events.split('"reason":"ReconcileFailed"').length - 1;
        return failures >= Object.keys(cases).length ? true : undefined;
      },
      { timeoutMs: 30_000, message: 'a ReconcileFailed event for every error path' },
    ).catch(() => false);
    expect(seen).toBe(true);
    expect(h.logs().includes('TemplateError')).toBe(true);
    expect(canaries.size).toBeGreaterThanOrEqual(10);
  });

  it('finds no canary, plain or base64, in status, events or the operator log', async () => {
    const { events, objects } = await visibleRecords(h, [workloadSecretKind]);
    const places = { logs: h.logs(), events, objects };
    const leaks = leaksOf(canaries, places);
    // Labels only: a failure names what leaked where, never the value.
    expect(leaks).toEqual([]);
  });
});
