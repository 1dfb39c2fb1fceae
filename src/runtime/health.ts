/**
 * Liveness and readiness probes, served as `/healthz` and `/readyz` (controller-runtime style).
 *
 * A check returns `true` when healthy. A probe answers 200 `ok` when every check of its kind
 * passes, and 500 with one line per failing check otherwise (`[-]name failed`), so
 * `kubectl describe pod` shows what is not ready. Readiness in Coffer means "all informers have
 * synced"; it does not depend on leadership, so a standby replica is Ready too.
 */
import { startHttpServer, type HttpReply, type ListenAddress, type RunningServer } from './http-server.ts';

/** `true` when healthy. Must be cheap and must not throw. */
export type HealthCheck = () => boolean;

export class HealthProbes {
  private readonly live = new Map<string, HealthCheck>();
  private readonly ready = new Map<string, HealthCheck>();

  /** Adds a liveness check; `/healthz` fails while it fails (the kubelet then restarts the pod). */
  addHealthCheck(name: string, check: HealthCheck): void {
    this.live.set(name, check);
  }

  /** Adds a readiness check; `/readyz` fails while it fails. */
  addReadyCheck(name: string, check: HealthCheck): void {
    this.ready.set(name, check);
  }

  /** The `/healthz` answer. */
  healthz(): HttpReply {
    return evaluate(this.live);
  }

  /** The `/readyz` answer. */
  readyz(): HttpReply {
    return evaluate(this.ready);
  }

  /** True when every readiness check passes. */
  isReady(): boolean {
    return this.readyz().status === 200;
  }
}

function evaluate(checks: ReadonlyMap<string, HealthCheck>): HttpReply {
  const failed: string[] = [];
  for (const [name, check] of checks) {
    let ok: boolean;
    try {
      ok = check();
    } catch {
      ok = false;
    }
    if (!ok) failed.push(`[-]${name} failed`);
  }
  return failed.length === 0
    ? { status: 200, body: 'ok\n' }
    : { status: 500, body: `${failed.join('\n')}\n` };
}

/** Serves `/healthz` and `/readyz` from `probes` on `address`. */
export function serveHealthProbes(probes: HealthProbes, address: ListenAddress): Promise<RunningServer> {
  return startHttpServer(address, { '/healthz': () => probes.healthz(), '/readyz': () => probes.readyz() });
}
