/**
 * The native memory addon (src/runtime/native/memory.c), compiled the way `npm run build` does
 * and loaded through `loadNativeMemory` in a child node process (releasing pages changes the
 * process that calls it, so the test runner's own process is left alone).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildNativeMemory } from '../../scripts/build/native.ts';
import { loadNativeMemory } from '../../src/runtime/native-memory.ts';

const loaderUrl = new URL('../../src/runtime/native-memory.ts', import.meta.url).href;

/** Runs `body` (an async function body given `memory`, the loaded addon) in a child node; its JSON result. */
function inChild(addon: string, body: string): Record<string, unknown> {
  const script = `
    import { readFileSync } from 'node:fs';
    import { loadNativeMemory } from ${JSON.stringify(loaderUrl)};
    const memory = loadNativeMemory(${JSON.stringify(addon)});
    if (memory instanceof Error) throw memory;
    /** Resident kB of this process: all, anonymous, and by mapping (start address → {rss, anon}). */
    const smaps = () => {
      const mappings = {};
      let current;
      for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\\n')) {
        const head = /^([0-9a-f]+)-[0-9a-f]+ (\\S+) \\S+ \\S+ (\\d+)\\s*(.*)$/.exec(line);
        if (head) { current = mappings[head[1]] = { perms: head[2], path: head[4], rss: 0, anon: 0 }; continue; }
        const field = /^(Rss|Anonymous):\\s+(\\d+) kB/.exec(line);
        if (field && current) current[field[1] === 'Rss' ? 'rss' : 'anon'] = Number(field[2]);
      }
      const all = Object.values(mappings);
      const sum = (pick) => all.reduce((total, m) => total + pick(m), 0);
      return { mappings, rss: sum((m) => m.rss), anon: sum((m) => m.anon), file: sum((m) => (m.path.startsWith('/') ? m.rss - m.anon : 0)) };
    };
    const result = await (async () => { ${body} })();
    console.log(JSON.stringify(result));
  `;
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

describe('native memory addon', () => {
  let dir: string;
  let addon: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'coffer-native-'));
    addon = join(dir, 'memory.node');
    buildNativeMemory(addon);
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('unmaps the resident file pages and the process runs on unchanged', () => {
    const result = inChild(
      addon,
      `
      const https = await import('node:https');
      const { createHash } = await import('node:crypto');
      const digest = (text) => createHash('sha256').update(text).digest('hex');
      const expected = digest('coffer');
      const data = Buffer.alloc(8 << 20, 7);
      const before = smaps();
      const released = memory.releaseFilePages();
      const after = smaps();
      // Private copies inside read-only file mappings (relocations of the node binary and libc)
      // are not file pages: they must still be there, page for page.
      const copies = Object.entries(before.mappings)
        .filter(([, m]) => m.path.startsWith('/') && !m.perms.includes('w') && m.anon > 0)
        .map(([start, m]) => ({ start, before: m.anon, after: after.mappings[start]?.anon }));
      return {
        released, before, after, copies,
        sameDigest: digest('coffer') === expected,
        dataIntact: data.every((byte) => byte === 7),
        agent: typeof https.Agent,
        regex: /a(b+)c/u.exec('xabbbc')?.[1],
        json: JSON.parse('{"kind":"SecretBatch"}').kind,
      };
      `,
    );
    const before = result.before as { rss: number; anon: number; file: number };
    const after = result.after as { rss: number; anon: number; file: number };
    const releasedKiB = (result.released as number) / 1024;
    expect(releasedKiB).toBeGreaterThan(8 * 1024);
    // (V8's threads touch pages between the reading of smaps and the release: no exact equality)
    expect(after.file).toBeLessThan(before.file - 8 * 1024);
    expect(after.file).toBeLessThan(before.file / 2);
    // Anonymous memory (the V8 heap, malloc, the 8 MiB buffer) is not what it releases.
    expect(after.anon).toBeGreaterThan(before.anon - 1024);
    const copies = result.copies as { before: number; after: number }[];
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) expect(copy.after).toBe(copy.before);
    expect(result).toMatchObject({
      sameDigest: true,
      dataIntact: true,
      agent: 'function',
      regex: 'bbb',
      json: 'SecretBatch',
    });
  });

  it('trims malloc after a burst of allocations is freed', () => {
    const result = inChild(
      addon,
      `
      let buffers = Array.from({ length: 256 }, () => Buffer.alloc(64 * 1024, 1));
      buffers = undefined;
      globalThis.gc();
      return { trimmed: memory.trimMalloc(1 << 20, 256 << 10), again: memory.trimMalloc(0, 0) };
      `,
    );
    expect(typeof result.trimmed).toBe('boolean');
    expect(typeof result.again).toBe('boolean');
  });

  it('reports a missing addon as an error instead of throwing', () => {
    const missing = loadNativeMemory(join(tmpdir(), 'coffer-no-such-addon', 'memory.node'));
    expect(missing).toBeInstanceOf(Error);
    expect((missing as Error).message).toMatch(/Cannot find module|no such file/i);
  });
});
