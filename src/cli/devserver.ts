/**
 * `coffer devserver`: runs the API-compatible local service until SIGINT/SIGTERM.
 *
 *   coffer devserver [--host 127.0.0.1] [--port 8080] [--data-file PATH]
 *                    [--rate-limit read=N,write=N,secrets=N] [--max-body 1mb]
 *                    [--fault-latency MS] [--fault-error-ratio R] [--fault-drop-ratio R]
 *                    [--enable-admin]
 *
 * Prints `devserver listening on http://HOST:PORT` once ready.
 */
import { parseArgs } from 'node:util';
import { parseRateLimitSpec } from '../devserver/domain/rate-limiter.ts';
import { startDevServer, type DevServerOptions, type RateLimitOptions } from '../devserver/server.ts';

const USAGE = `usage: coffer devserver [--host 127.0.0.1] [--port 8080] [--data-file PATH]
                        [--rate-limit read=N,write=N,secrets=N] [--max-body 1mb]
                        [--fault-latency MS] [--fault-error-ratio R] [--fault-drop-ratio R]
                        [--enable-admin]`;

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1024,
  k: 1024,
  mb: 1024 ** 2,
  m: 1024 ** 2,
  gb: 1024 ** 3,
  g: 1024 ** 3,
};

/** "1mb" → 1048576; plain numbers are bytes. */
export function parseByteSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const factor = match ? UNITS[(match[2] ?? '').toLowerCase()] : undefined;
  if (!match || factor === undefined)
    throw new Error(`cannot parse size "${text}": expected e.g. 512kb or 1mb`);
  return Math.floor(Number(match[1]) * factor);
}

/** "read=60,write=200" → `{read: 60, write: 200}`; only the three service buckets are accepted. */
export function parseRateLimit(text: string): RateLimitOptions {
  const limits = parseRateLimitSpec(text);
  const unknown = Object.keys(limits).filter((k) => !['read', 'write', 'secrets'].includes(k));
  if (unknown.length > 0)
    throw new Error(
      `cannot parse rate limit: unknown bucket ${unknown.join(', ')} (use read, write, secrets)`,
    );
  return limits;
}

function number(name: string, value: string | undefined, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > max) throw new Error(`cannot parse --${name} "${value}"`);
  return n;
}

/** Turns command-line flags into server options. */
export function parseDevServerArgs(args: string[]): DevServerOptions {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8080' },
      'data-file': { type: 'string' },
      'rate-limit': { type: 'string' },
      'max-body': { type: 'string', default: '1mb' },
      'fault-latency': { type: 'string' },
      'fault-error-ratio': { type: 'string' },
      'fault-drop-ratio': { type: 'string' },
      'enable-admin': { type: 'boolean', default: false },
    },
    strict: true,
  });
  return {
    host: values.host,
    port: number('port', values.port, 65535),
    dataFile: values['data-file'],
    rateLimit: values['rate-limit'] ? parseRateLimit(values['rate-limit']) : undefined,
    maxBodyBytes: parseByteSize(values['max-body']),
    faults: {
      latencyMs: number('fault-latency', values['fault-latency']),
      errorRatio: number('fault-error-ratio', values['fault-error-ratio'], 1),
      dropRatio: number('fault-drop-ratio', values['fault-drop-ratio'], 1),
    },
    enableAdmin: values['enable-admin'],
    onError: (err) => console.error('devserver: unexpected error:', err instanceof Error ? err.message : err),
  };
}

/** Runs the devserver until a signal arrives; resolves with the exit status. */
export async function runDevServer(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let options: DevServerOptions;
  try {
    options = parseDevServerArgs(args);
  } catch (err) {
    console.error(`coffer devserver: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const server = await startDevServer(options);
  console.log(`devserver listening on ${server.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  console.log('devserver stopped');
  return 0;
}
