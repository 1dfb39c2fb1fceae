// `coffer devserver` flag parsing, and the command itself in a child process: it prints the
// listening line, serves health checks, and exits 0 on SIGTERM.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { parseByteSize, parseDevServerArgs, parseRateLimit } from './devserver.ts';

describe('coffer devserver flags', () => {
  it('parses sizes, rate limits and fault flags', () => {
    expect(parseByteSize('1mb')).toBe(1024 * 1024);
    expect(parseByteSize('512kb')).toBe(512 * 1024);
    expect(parseByteSize('100')).toBe(100);
    expect(() => parseByteSize('lots')).toThrow(/cannot parse size/);
    expect(parseRateLimit('read=60,write=200,secrets=30')).toEqual({ read: 60, write: 200, secrets: 30 });
    expect(() => parseRateLimit('read=0')).toThrow();
    expect(() => parseRateLimit('reads=5')).toThrow(/unknown bucket/);
    const options = parseDevServerArgs([
      '--port',
      '0',
      '--max-body',
      '2mb',
      '--fault-error-ratio',
      '0.5',
      '--fault-latency',
      '10',
      '--enable-admin',
    ]);
    expect(options).toMatchObject({
      host: '127.0.0.1',
      port: 0,
      maxBodyBytes: 2 * 1024 * 1024,
      faults: { errorRatio: 0.5, latencyMs: 10 },
      enableAdmin: true,
    });
    expect(() => parseDevServerArgs(['--fault-drop-ratio', '2'])).toThrow();
    expect(() => parseDevServerArgs(['--bogus'])).toThrow();
  });

  it('runs until SIGTERM and prints where it listens', async () => {
    const child = spawn(process.execPath, ['src/cli/main.ts', 'devserver', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let url: string | undefined;
    for await (const chunk of child.stdout) {
      out += String(chunk);
      url = /devserver listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url) break;
    }
    expect(url).toBeDefined();
    expect((await fetch(`${url}/api/status`)).status).toBe(200);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  }, 30_000);
});
