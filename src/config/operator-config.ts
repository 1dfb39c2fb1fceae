/**
 * The operator's configuration: command-line flags (controller-runtime style) and environment
 * variables → one typed, validated `OperatorConfig`. This is the only place in `src/` that knows
 * about environment variables; callers pass `process.env` in (so tests pass a plain object).
 *
 * Precedence: flag > environment variable > default. Every flag `--some-flag` can also be set by
 * the environment variable `COFFER_SOME_FLAG`; a few conventional variables are honoured too
 * (`KUBECONFIG`, `POD_NAMESPACE` for the leader-election and the operator's own namespace).
 */
import { z } from 'zod';
import { defaultProjectedTokenDir, isNormalizedPath } from '../api/v1alpha1/index.ts';
import { tryParseDuration } from '../runtime/duration.ts';
import { parseArgs, type FlagSpec } from './flags.ts';

/** Where an HTTP server listens; `undefined` host means all interfaces. */
export interface BindAddress {
  readonly host?: string;
  readonly port: number;
}

/** Leader-election timings, in milliseconds (client-go semantics). */
export interface LeaderElectionTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** The validated operator configuration. */
export interface OperatorConfig {
  readonly leaderElect: boolean;
  /** Namespace of the leader-election Lease; always set when `leaderElect` is true. */
  readonly leaderElectionNamespace?: string;
  readonly leaderElectionId: string;
  readonly leaderElection: LeaderElectionTimings;
  /** `null` when disabled with `0`. */
  readonly metricsBindAddress: BindAddress | null;
  /** `null` when disabled with `0`. */
  readonly healthProbeBindAddress: BindAddress | null;
  readonly maxConcurrentReconciles: number;
  /** Namespaces to watch; empty means all namespaces. */
  readonly namespaces: readonly string[];
  readonly logLevel: LogLevel;
  /** Path to a kubeconfig; undefined means in-cluster config, then the default locations. */
  readonly kubeconfig?: string;
  readonly defaultPollIntervalMs: number;
  /** Requeue of a resource waiting on a dependency that is not Ready. */
  readonly waitRequeueMs: number;
  /** Grace period before a connection's replaced client (rotated credentials) is closed. */
  readonly clientCloseDelayMs: number;
  /** How long shutdown waits for in-flight reconciles before giving up on them. */
  readonly gracefulShutdownTimeoutMs: number;
  /** How often to check for unused heap to give back (`heap-trimmer.ts`); 0 disables. */
  readonly heapTrimIntervalMs: number;
  /** The operator's own namespace: a Connection there may log in with the operator's projected token. */
  readonly operatorNamespace?: string;
  /** The only directory a (Cluster)Connection's projected token file is read from. */
  readonly projectedTokenDir: string;
}

export const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** Thrown for any invalid flag or environment value; the message names the flag. */
export class ConfigError extends Error {}

const flagSpecs: readonly FlagSpec[] = [
  { name: 'leader-elect', boolean: true, help: 'enable leader election (one active replica)' },
  { name: 'leader-election-namespace', help: 'namespace of the Lease (default: $POD_NAMESPACE)' },
  {
    name: 'operator-namespace',
    help: 'the operator’s namespace, where a Connection may use its projected token (default: $POD_NAMESPACE)',
  },
  {
    name: 'projected-token-dir',
    help: `the only directory projected ServiceAccount token files are read from (default ${defaultProjectedTokenDir})`,
  },
  { name: 'leader-election-id', help: 'name of the Lease (default coffer-operator-leader)' },
  { name: 'leader-election-lease-duration', help: 'Go duration (default 15s)' },
  { name: 'leader-election-renew-deadline', help: 'Go duration (default 10s)' },
  { name: 'leader-election-retry-period', help: 'Go duration (default 2s)' },
  { name: 'metrics-bind-address', help: '[host]:port for /metrics, 0 disables (default :8080)' },
  {
    name: 'health-probe-bind-address',
    help: '[host]:port for /healthz and /readyz, 0 disables (default :8081)',
  },
  { name: 'max-concurrent-reconciles', help: 'workers per controller (default 4)' },
  { name: 'namespaces', help: 'comma-separated namespaces to watch (default: all)' },
  { name: 'log-level', help: `one of ${logLevels.join(', ')} (default info)` },
  { name: 'kubeconfig', help: 'path to a kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)' },
  { name: 'default-poll-interval', help: 'Go duration between drift checks (default 10m)' },
  {
    name: 'wait-requeue-interval',
    help: 'Go duration between checks of a dependency that is not Ready yet (default 10s)',
  },
  {
    name: 'client-close-delay',
    help: 'Go duration a connection’s client stays open after its credentials rotated, for calls in flight (default 30s)',
  },
  { name: 'graceful-shutdown-timeout', help: 'Go duration to finish in-flight work (default 30s)' },
  {
    name: 'heap-trim-interval',
    help: 'Go duration between checks that return the V8 heap V8 no longer uses to the system (after bursts), 0 disables (default 1m)',
  },
];

/** Conventional variables consulted after `COFFER_*` for a flag. */
const extraEnv: Record<string, string> = {
  kubeconfig: 'KUBECONFIG',
  'leader-election-namespace': 'POD_NAMESPACE',
  'operator-namespace': 'POD_NAMESPACE',
};

const dns1123Label = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const boolText = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const duration = (min: number) =>
  z.string().transform((text, ctx) => {
    const ms = tryParseDuration(text);
    if (ms === undefined)
      ctx.addIssue({ code: 'custom', message: `"${text}" is not a duration like 30s, 10m or 1h` });
    else if (ms < min) ctx.addIssue({ code: 'custom', message: `must be at least ${min} ms` });
    return ms ?? 0;
  });

const bindAddress = z.string().transform((text, ctx): BindAddress | null => {
  if (text === '0') return null;
  const colon = text.lastIndexOf(':');
  const portText = colon < 0 ? '' : text.slice(colon + 1);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    ctx.addIssue({ code: 'custom', message: `"${text}" is not [host]:port or 0` });
    return null;
  }
  const host = text.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return host ? { host, port } : { port };
});

const namespaceList = z.string().transform((text, ctx) => {
  const names = [
    ...new Set(
      text
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
    ),
  ];
  const bad = names.filter((n) => !dns1123Label.test(n));
  if (bad.length > 0)
    ctx.addIssue({ code: 'custom', message: `invalid namespace name(s): ${bad.join(', ')}` });
  return names;
});

const positiveInt = z
  .string()
  .regex(/^\d+$/, 'must be a positive integer')
  .transform(Number)
  .pipe(z.number().int().min(1).max(1000));

const schema = z.object({
  'leader-elect': boolText.default(false),
  'leader-election-namespace': z.string().regex(dns1123Label, 'must be a namespace name').optional(),
  'operator-namespace': z.string().regex(dns1123Label, 'must be a namespace name').optional(),
  'projected-token-dir': z
    .string()
    .regex(/^\//, 'must be an absolute path')
    .refine((dir) => dir !== '/', 'must not be /')
    .refine(isNormalizedPath, 'must be a normalized path (no empty, . or .. segments, no trailing /)')
    .default(defaultProjectedTokenDir),
  'leader-election-id': z
    .string()
    .regex(dns1123Label, 'must be a DNS-1123 label')
    .default('coffer-operator-leader'),
  'leader-election-lease-duration': duration(1_000).default(15_000),
  'leader-election-renew-deadline': duration(500).default(10_000),
  'leader-election-retry-period': duration(100).default(2_000),
  'metrics-bind-address': bindAddress.default({ port: 8080 }),
  'health-probe-bind-address': bindAddress.default({ port: 8081 }),
  'max-concurrent-reconciles': positiveInt.default(4),
  namespaces: namespaceList.default([]),
  'log-level': z.enum(logLevels).default('info'),
  kubeconfig: z.string().min(1).optional(),
  'default-poll-interval': duration(1_000).default(600_000),
  'wait-requeue-interval': duration(100).default(10_000),
  'client-close-delay': duration(0).default(30_000),
  'graceful-shutdown-timeout': duration(0).default(30_000),
  'heap-trim-interval': duration(0)
    .refine((ms) => ms === 0 || ms >= 1_000, 'must be 0 (off) or at least 1s')
    .default(60_000),
});

/**
 * Parses `argv` (without the program and subcommand names, e.g. `['--leader-elect',
 * '--namespaces=a,b']`) and `env` into a validated config. Accepts `--flag=value` and
 * `--flag value`; boolean flags may stand alone. Throws `ConfigError` naming the offending flag.
 */
export function parseOperatorConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): OperatorConfig {
  const raw = { ...fromEnv(env), ...parseFlags(argv) };
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${issues.join('; ')}`);
  }
  return toConfig(parsed.data);
}

/** One line per flag, for `--help`. */
export function operatorConfigUsage(): string {
  return flagSpecs.map((f) => `  --${f.name.padEnd(32)} ${f.help}`).join('\n');
}

function parseFlags(argv: readonly string[]): Record<string, string> {
  try {
    return parseArgs(argv, flagSpecs);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`, { cause: error });
  }
}

function fromEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name } of flagSpecs) {
    const key = `COFFER_${name.toUpperCase().replaceAll('-', '_')}`;
    const extra = extraEnv[name];
    const value = env[key] ?? (extra === undefined ? undefined : env[extra]);
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

function toConfig(data: z.output<typeof schema>): OperatorConfig {
  const leaderElection = {
    leaseDurationMs: data['leader-election-lease-duration'],
    renewDeadlineMs: data['leader-election-renew-deadline'],
    retryPeriodMs: data['leader-election-retry-period'],
  };
  if (data['leader-elect']) checkLeaderElection(leaderElection, data['leader-election-namespace']);
  return {
    leaderElect: data['leader-elect'],
    leaderElectionNamespace: data['leader-election-namespace'],
    leaderElectionId: data['leader-election-id'],
    leaderElection,
    metricsBindAddress: data['metrics-bind-address'],
    healthProbeBindAddress: data['health-probe-bind-address'],
    maxConcurrentReconciles: data['max-concurrent-reconciles'],
    namespaces: data.namespaces,
    logLevel: data['log-level'],
    kubeconfig: data.kubeconfig,
    defaultPollIntervalMs: data['default-poll-interval'],
    waitRequeueMs: data['wait-requeue-interval'],
    clientCloseDelayMs: data['client-close-delay'],
    gracefulShutdownTimeoutMs: data['graceful-shutdown-timeout'],
    heapTrimIntervalMs: data['heap-trim-interval'],
    operatorNamespace: data['operator-namespace'],
    projectedTokenDir: data['projected-token-dir'],
  };
}

// client-go refuses the same combinations: a renew deadline at or past the lease duration
// lets two replicas lead at once, and retrying slower than the deadline can never renew.
function checkLeaderElection(t: LeaderElectionTimings, namespace: string | undefined): void {
  if (namespace === undefined) {
    throw new ConfigError(
      'invalid configuration: --leader-election-namespace is required with --leader-elect (or set POD_NAMESPACE)',
    );
  }
  if (t.renewDeadlineMs >= t.leaseDurationMs) {
    throw new ConfigError(
      'invalid configuration: --leader-election-renew-deadline must be shorter than --leader-election-lease-duration',
    );
  }
  if (t.retryPeriodMs >= t.renewDeadlineMs) {
    throw new ConfigError(
      'invalid configuration: --leader-election-retry-period must be shorter than --leader-election-renew-deadline',
    );
  }
}
