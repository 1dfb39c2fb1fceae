/**
 * The operator process's memory tuning, declared once: V8 flags (`NODE_OPTIONS`) and glibc malloc
 * tunables (`GLIBC_TUNABLES`), each under the name Node and glibc give it. `npm run generate`
 * writes them into the image (Dockerfile), the Helm chart's values and kustomize's manager
 * Deployment; the benchmarks (`npm run bench*`) start the operator with them.
 *
 * Measured with `npm run bench:rest` and `npm run bench` (figures as the kubelet sees them:
 * README, "Sizing"):
 * - `--max-semi-space-size=2`: a young generation of at most 4 MiB; 1 MiB costs more CPU in
 *   bursts of reconciles, larger ones keep more memory after them.
 * - `--max-old-space-size=256`: the heap limit, below the chart's memory limit, so a runaway meets
 *   the heap limit before the kernel's OOM killer.
 * - `glibc.malloc.arena_max=2`: two malloc arenas instead of up to eight per core; each V8 worker
 *   thread otherwise keeps what a burst allocated in an arena of its own.
 * - `glibc.malloc.trim_threshold` and `glibc.malloc.mmap_threshold`: fixed thresholds (glibc
 *   otherwise raises both after large frees), so large blocks are mapped and unmapped on their own
 *   and free memory at the top of a heap goes back to the system on `free`.
 */

/** V8 flags, in `NODE_OPTIONS`. */
export const nodeFlags: Readonly<Record<string, number>> = {
  '--max-semi-space-size': 2,
  '--max-old-space-size': 256,
};

/** glibc malloc tunables, in `GLIBC_TUNABLES` (bytes for the thresholds). */
export const glibcTunables: Readonly<Record<string, number>> = {
  'glibc.malloc.arena_max': 2,
  'glibc.malloc.trim_threshold': 131072,
  'glibc.malloc.mmap_threshold': 131072,
};

/** The process environment that carries the tuning: `NODE_OPTIONS` and `GLIBC_TUNABLES`. */
export function tuningEnv(): { readonly NODE_OPTIONS: string; readonly GLIBC_TUNABLES: string } {
  return {
    NODE_OPTIONS: Object.entries(nodeFlags)
      .map(([flag, value]) => `${flag}=${value}`)
      .join(' '),
    GLIBC_TUNABLES: Object.entries(glibcTunables)
      .map(([name, value]) => `${name}=${value}`)
      .join(':'),
  };
}
