/**
 * Readiness probes of the control-plane processes: HTTPS GETs that trust the local CA (and
 * authenticate with a client certificate when given), a plain HTTP GET for etcd, and a wait loop
 * that fails fast, with the process's last log lines, when the process exits.
 */
import { request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManagedProcess } from './process.ts';

/** How long a process may take to answer its readiness probe. */
export const readyTimeoutMs = 60_000;

/** TLS material of an HTTPS probe: the CA to trust and, optionally, a client certificate. */
export interface ProbeTls {
  readonly ca: string;
  readonly cert?: string;
  readonly key?: string;
}

/** GET `url` over HTTPS trusting `tls.ca`; true on HTTP 200, false on any other answer or error. */
export function probeHttps(url: string, tls: ProbeTls): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { ...tls, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** GET `url` over plain HTTP; true on a 2xx answer. */
export async function probeHttp(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Resolves once `check()` is true. Throws `cannot start <name>` with the process's last log lines
 * when the process exits first or after {@link readyTimeoutMs}.
 */
export async function waitUntilReady(proc: ManagedProcess, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (!proc.running) {
      const exit = await proc.exited;
      throw new Error(
        `cannot start ${proc.name}: it exited (code ${exit.code}, signal ${exit.signal}); last log lines:\n${proc.logTail()}`,
      );
    }
    if (await check()) return;
    if (Date.now() > deadline) {
      throw new Error(
        `cannot start ${proc.name}: not ready after ${readyTimeoutMs} ms; last log lines:\n${proc.logTail()}`,
      );
    }
    await sleep(50);
  }
}
