/**
 * Request and write counters. Tests and benchmarks read them (directly or via
 * `GET /__devserver/stats`) to assert, for example, that a steady-state operator made no writes.
 */

/** A JSON snapshot of the counters. */
export interface StatsSnapshot {
  since: string;
  requests: {
    total: number;
    byMethod: Record<string, number>;
    /** Keyed by `METHOD /route/:pattern`, or `unmatched`. */
    byRoute: Record<string, number>;
    byStatus: Record<string, number>;
  };
  /** Successful (2xx) state-changing requests; logins, renewals and reads are not writes. */
  writes: { total: number; byRoute: Record<string, number> };
  rateLimited: number;
  faults: { errors: number; drops: number };
}

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

/** Mutable counters owned by one devserver. */
export class DevServerStats {
  private data: StatsSnapshot;
  private readonly clock: () => number;

  constructor(clock: () => number = Date.now) {
    this.clock = clock;
    this.data = DevServerStats.empty(clock());
  }

  private static empty(nowMs: number): StatsSnapshot {
    return {
      since: new Date(nowMs).toISOString(),
      requests: { total: 0, byMethod: {}, byRoute: {}, byStatus: {} },
      writes: { total: 0, byRoute: {} },
      rateLimited: 0,
      faults: { errors: 0, drops: 0 },
    };
  }

  /** Records one answered request. */
  recordRequest(method: string, route: string, status: number, isWrite: boolean): void {
    const r = this.data.requests;
    r.total++;
    bump(r.byMethod, method);
    bump(r.byRoute, route);
    bump(r.byStatus, String(status));
    if (status === 429) this.data.rateLimited++;
    if (isWrite && status >= 200 && status < 300) {
      this.data.writes.total++;
      bump(this.data.writes.byRoute, route);
    }
  }

  recordFault(kind: 'errors' | 'drops'): void {
    this.data.faults[kind]++;
  }

  get requests(): StatsSnapshot['requests'] {
    return this.data.requests;
  }

  get writes(): StatsSnapshot['writes'] {
    return this.data.writes;
  }

  /** A deep copy of the counters. */
  snapshot(): StatsSnapshot {
    return structuredClone(this.data);
  }

  /** Zeroes every counter. */
  reset(): void {
    this.data = DevServerStats.empty(this.clock());
  }

  toJSON(): StatsSnapshot {
    return this.snapshot();
  }
}
