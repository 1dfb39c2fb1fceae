import { describe, expect, it } from 'vitest';
import { ConfigError, operatorConfigUsage, parseOperatorConfig } from './operator-config.ts';

describe('parseOperatorConfig', () => {
  it('applies controller-runtime style defaults', () => {
    const config = parseOperatorConfig([], {});
    expect(config).toEqual({
      leaderElect: false,
      leaderElectionNamespace: undefined,
      leaderElectionId: 'coffer-operator-leader',
      leaderElection: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      metricsBindAddress: { port: 8080 },
      healthProbeBindAddress: { port: 8081 },
      maxConcurrentReconciles: 4,
      namespaces: [],
      logLevel: 'info',
      kubeconfig: undefined,
      defaultPollIntervalMs: 600_000,
      waitRequeueMs: 10_000,
      clientCloseDelayMs: 30_000,
      gracefulShutdownTimeoutMs: 30_000,
      heapTrimIntervalMs: 60_000,
      projectedTokenDir: '/var/run/secrets/coffer.dev/serviceaccount',
    });
  });

  it.each([
    { reason: 'flag=value', argv: ['--log-level=debug'], pick: 'logLevel', want: 'debug' },
    { reason: 'flag value', argv: ['--log-level', 'warn'], pick: 'logLevel', want: 'warn' },
    {
      reason: 'bare boolean',
      argv: ['--leader-elect', '--leader-election-namespace=ops'],
      pick: 'leaderElect',
      want: true,
    },
    { reason: 'explicit false', argv: ['--leader-elect=false'], pick: 'leaderElect', want: false },
    {
      reason: 'namespaces deduplicated and trimmed',
      argv: ['--namespaces=a, b,a,'],
      pick: 'namespaces',
      want: ['a', 'b'],
    },
    {
      reason: 'bind address disabled',
      argv: ['--metrics-bind-address=0'],
      pick: 'metricsBindAddress',
      want: null,
    },
    {
      reason: 'bind address with host',
      argv: ['--health-probe-bind-address=127.0.0.1:9000'],
      pick: 'healthProbeBindAddress',
      want: { host: '127.0.0.1', port: 9000 },
    },
    {
      reason: 'IPv6 host',
      argv: ['--metrics-bind-address=[::1]:0'],
      pick: 'metricsBindAddress',
      want: { host: '::1', port: 0 },
    },
    {
      reason: 'poll interval',
      argv: ['--default-poll-interval=1h30m'],
      pick: 'defaultPollIntervalMs',
      want: 5_400_000,
    },
    { reason: 'wait requeue', argv: ['--wait-requeue-interval=1s'], pick: 'waitRequeueMs', want: 1_000 },
    { reason: 'client close delay', argv: ['--client-close-delay=0s'], pick: 'clientCloseDelayMs', want: 0 },
    { reason: 'heap trimming off', argv: ['--heap-trim-interval=0'], pick: 'heapTrimIntervalMs', want: 0 },
    {
      reason: 'heap trim interval',
      argv: ['--heap-trim-interval=5m'],
      pick: 'heapTrimIntervalMs',
      want: 300_000,
    },
    {
      reason: 'workers',
      argv: ['--max-concurrent-reconciles', '16'],
      pick: 'maxConcurrentReconciles',
      want: 16,
    },
    { reason: 'kubeconfig', argv: ['--kubeconfig=/tmp/kc'], pick: 'kubeconfig', want: '/tmp/kc' },
    {
      reason: 'projected-token directory',
      argv: ['--projected-token-dir=/var/run/secrets/tokens'],
      pick: 'projectedTokenDir',
      want: '/var/run/secrets/tokens',
    },
  ] as const)('reads flags: $reason', ({ argv, pick, want }) => {
    expect(parseOperatorConfig(argv)[pick]).toEqual(want);
  });

  it('takes environment variables, with flags winning', () => {
    const env = {
      COFFER_LOG_LEVEL: 'error',
      KUBECONFIG: '/env/kc',
      POD_NAMESPACE: 'coffer-system',
      COFFER_LEADER_ELECT: 'true',
    };
    const config = parseOperatorConfig(['--log-level=debug'], env);
    expect(config.logLevel).toBe('debug');
    expect(config.kubeconfig).toBe('/env/kc');
    expect(config.leaderElect).toBe(true);
    expect(config.leaderElectionNamespace).toBe('coffer-system');
  });

  it('prefers COFFER_* over the conventional variable', () => {
    const config = parseOperatorConfig([], { KUBECONFIG: '/a', COFFER_KUBECONFIG: '/b' });
    expect(config.kubeconfig).toBe('/b');
  });

  it.each([
    { reason: 'unknown flag', argv: ['--nope'], message: 'unknown flag --nope' },
    { reason: 'positional', argv: ['run'], message: 'unexpected argument "run"' },
    { reason: 'missing value', argv: ['--log-level'], message: 'flag --log-level needs a value' },
    { reason: 'repeated', argv: ['--namespaces=a', '--namespaces=b'], message: 'given more than once' },
    { reason: 'bad level', argv: ['--log-level=loud'], message: '--log-level:' },
    { reason: 'bad boolean', argv: ['--leader-elect=yes'], message: '--leader-elect:' },
    {
      reason: 'bad duration',
      argv: ['--default-poll-interval=10 minutes'],
      message: '--default-poll-interval: "10 minutes" is not a duration',
    },
    { reason: 'too short poll', argv: ['--default-poll-interval=10ms'], message: 'must be at least 1000 ms' },
    {
      reason: 'heap trim too often',
      argv: ['--heap-trim-interval=10ms'],
      message: 'must be 0 (off) or at least 1s',
    },
    {
      reason: 'bad address',
      argv: ['--metrics-bind-address=localhost'],
      message: '--metrics-bind-address: "localhost" is not [host]:port or 0',
    },
    { reason: 'port too big', argv: ['--metrics-bind-address=:70000'], message: '--metrics-bind-address:' },
    {
      reason: 'zero workers',
      argv: ['--max-concurrent-reconciles=0'],
      message: '--max-concurrent-reconciles:',
    },
    {
      reason: 'bad namespace',
      argv: ['--namespaces=ok,Not_OK'],
      message: 'invalid namespace name(s): Not_OK',
    },
    {
      reason: 'relative projected-token directory',
      argv: ['--projected-token-dir=tokens'],
      message: '--projected-token-dir: must be an absolute path',
    },
    { reason: 'projected-token directory /', argv: ['--projected-token-dir=/'], message: 'must not be /' },
    {
      reason: 'projected-token directory with ..',
      argv: ['--projected-token-dir=/var/run/../proc'],
      message: '--projected-token-dir: must be a normalized path',
    },
    {
      reason: 'leader election without namespace',
      argv: ['--leader-elect'],
      message: '--leader-election-namespace is required',
    },
    {
      reason: 'renew deadline not below lease',
      argv: ['--leader-elect', '--leader-election-namespace=x', '--leader-election-renew-deadline=15s'],
      message: 'renew-deadline must be shorter',
    },
    {
      reason: 'retry not below renew deadline',
      argv: ['--leader-elect', '--leader-election-namespace=x', '--leader-election-retry-period=10s'],
      message: 'retry-period must be shorter',
    },
  ])('rejects $reason with a message naming the flag', ({ argv, message }) => {
    expect(() => parseOperatorConfig(argv)).toThrow(ConfigError);
    expect(() => parseOperatorConfig(argv)).toThrow(message);
  });

  it('names every flag in the usage text', () => {
    const usage = operatorConfigUsage();
    for (const flag of [
      '--leader-elect',
      '--metrics-bind-address',
      '--namespaces',
      '--default-poll-interval',
      '--heap-trim-interval',
      '--projected-token-dir',
    ]) {
      expect(usage).toContain(flag);
    }
  });
});
