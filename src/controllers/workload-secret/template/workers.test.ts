import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { failureMessage, type RenderOutcome } from './outcome.ts';
import { RenderWorkers } from './workers.ts';

const data = { A: 'canary-value-a', K: 'A' };
const job = (template: string) => ({ templates: [['out', template]] as [string, string][], data });
const x64 = 'x'.repeat(64);

/** Templates that meet each limit (nested loops, a growing capture, a big output). */
const hostile = {
  loops:
    '{% for i in (1..100000) %}{% for j in (1..100000) %}{% if i == j %}{% endif %}{% endfor %}{% endfor %}',
  capture: `{% capture s %}{% for i in (1..7000000) %}${x64}{% endfor %}{% endcapture %}{{ s | size }}`,
  output: `{% assign s = "${x64}" %}{% for i in (1..11) %}{% assign s = s | append: s %}{% endfor %}{% for i in (1..20) %}{{ s }}{% endfor %}`,
  growing: '{% assign s = A %}{% for i in (1..60) %}{% assign s = s | append: s | toJson %}{% endfor %}',
};

function message(outcome: RenderOutcome): string {
  if (outcome.ok) throw new Error('expected a failure');
  return failureMessage(outcome.failure);
}

let workers: RenderWorkers | undefined;
afterEach(async () => {
  await workers?.close();
  workers = undefined;
});

// Every failed render starts a new worker (about 0.5 s from the TypeScript sources).
describe('RenderWorkers', () => {
  it('starts no worker before the first render, and stops an idle one', async () => {
    workers = new RenderWorkers({ idleMs: 50 });
    expect(workers.running).toBe(0);
    expect(await workers.render(job('{{ A }}'))).toEqual({ ok: true, data: { out: 'canary-value-a' } });
    expect(workers.running).toBe(1);
    await expect.poll(() => workers?.running, { timeout: 5_000 }).toBe(0);
  });

  it('ends a template at the time limit, and renders the next one', async () => {
    workers = new RenderWorkers({ size: 1 });
    expect(message(await workers.render(job(hostile.loops)))).toMatch(
      /^template of key "out"(, line \d+ column \d+)?: time limit exceeded \(1000 ms/,
    );
    expect(await workers.render(job('{{ K }}'))).toEqual({ ok: true, data: { out: 'A' } });
  }, 30_000);

  it('ends a template at the memory and output limits, and renders the next one', async () => {
    // A long time budget, so on a busy machine only the limit under test can end these renders.
    workers = new RenderWorkers({ size: 1, budgetMs: 60_000 });
    expect(message(await workers.render(job(hostile.capture)))).toMatch(
      /^template of key "out".*: memory limit exceeded \(16 MiB\)$/,
    );
    expect(message(await workers.render(job(hostile.growing)))).toMatch(/memory limit exceeded/);
    expect(message(await workers.render(job(hostile.output)))).toMatch(
      /^template of key "out", line 1 column \d+: output size limit exceeded \(1 MiB\)$/,
    );
    expect(await workers.render(job('{{ K }}'))).toEqual({ ok: true, data: { out: 'A' } });
  }, 120_000);

  it('holds a worker to its own heap limit under the chart’s --max-old-space-size=256', async () => {
    // V8's heap flags would give a worker the operator's 256 MiB; run as the chart runs it.
    const script = [
      `import { RenderWorkers } from ${JSON.stringify(new URL('./workers.ts', import.meta.url).href)};`,
      'const workers = new RenderWorkers({ size: 1, budgetMs: 60_000 });',
      `const outcome = await workers.render({ templates: [['out', ${JSON.stringify(hostile.capture)}]], data: {} });`,
      'console.log(JSON.stringify({ limit: workers.heapLimitMb, outcome }));',
      'await workers.close();',
    ].join('\n');
    const args = ['--max-old-space-size=256', '--max-semi-space-size=2', '--input-type=module', '-e', script];
    const { stdout } = await promisify(execFile)(process.execPath, args);
    const { limit, outcome } = JSON.parse(stdout) as { limit: number; outcome: RenderOutcome };
    expect(limit).toBeLessThan(32);
    expect(message(outcome)).toMatch(/memory limit exceeded \(16 MiB\)$/);
  }, 120_000);

  it('lets the process exit with an idle worker (a graceful stop waits for nothing)', async () => {
    const script = [
      `import { RenderWorkers } from ${JSON.stringify(new URL('./workers.ts', import.meta.url).href)};`,
      "const outcome = await new RenderWorkers().render({ templates: [['out', '{{ 1 }}']], data: {} });",
      'console.log(JSON.stringify(outcome));',
    ].join('\n');
    const run = promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 20_000,
    });
    expect(JSON.parse((await run).stdout)).toEqual({ ok: true, data: { out: '1' } });
  }, 30_000);

  it('fails the job with a plain error (retried by the reconciler) when no worker can start', async () => {
    workers = new RenderWorkers({ script: new URL('./no-such-worker.ts', import.meta.url) });
    await expect(workers.render(job('{{ A }}'))).rejects.toThrow(/^cannot render the templates/);
  });

  it('keeps rendering other templates on the second worker while one is hostile', async () => {
    // A long budget, so the hostile render certainly outlasts the benign ones; close() ends it.
    workers = new RenderWorkers({ size: 2, budgetMs: 60_000 });
    await Promise.all([workers.render(job('{{ A }}')), workers.render(job('{{ A }}'))]);
    expect(workers.running).toBe(2);
    let slowDone = false;
    const slow = workers.render(job(hostile.loops)).finally(() => (slowDone = true));
    for (let i = 0; i < 3; i += 1)
      expect(await workers.render(job('{{ K }}'))).toEqual({ ok: true, data: { out: 'A' } });
    expect(slowDone).toBe(false);
    const ended = expect(slow).rejects.toThrow('the render workers closed');
    await workers.close();
    await ended;
  });
});
