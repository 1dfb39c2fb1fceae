/**
 * `coffer operator`: runs the operator until SIGTERM/SIGINT (graceful: in-flight reconciles
 * finish, bounded by --graceful-shutdown-timeout; a second signal exits at once).
 *
 * Flags: see `src/config/operator-config.ts` (`coffer operator --help`); every flag can also be
 * set as `COFFER_<FLAG>`. The Kubernetes client configuration is `--kubeconfig` / `$KUBECONFIG`,
 * then the in-cluster service account, then `~/.kube/config`. Logs are JSON lines on stdout.
 *
 * Exit status: 0 after a signal, 1 when leadership was lost or start-up failed, 2 for bad flags.
 */
import { loadKubeConfig, managerOptions, operatorLogger } from '../config/manager-options.ts';
import {
  ConfigError,
  operatorConfigUsage,
  parseOperatorConfig,
  type OperatorConfig,
} from '../config/operator-config.ts';
import { startHeapTrimmer } from '../runtime/heap-trimmer.ts';
import { shutdownSignal } from '../runtime/manager.ts';
import { startOperator } from '../operator/start.ts';

const usage = `usage: coffer operator [flags]\n\nflags:\n${operatorConfigUsage()}`;

/** Runs the operator; resolves with the exit status. */
export async function runOperator(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage);
    return 0;
  }
  let config: OperatorConfig;
  try {
    config = parseOperatorConfig(args, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`coffer operator: ${error.message}\n\n${usage}`);
    return 2;
  }
  const log = operatorLogger(config);
  const signals = shutdownSignal(log);
  const trimmer =
    config.heapTrimIntervalMs > 0
      ? startHeapTrimmer({ intervalMs: config.heapTrimIntervalMs, log })
      : undefined;
  try {
    const operator = await startOperator({
      ...managerOptions(config, loadKubeConfig(config, env), log),
      defaultPollIntervalMs: config.defaultPollIntervalMs,
      waitRequeueMs: config.waitRequeueMs,
      clientCloseDelayMs: config.clientCloseDelayMs,
      ...(config.operatorNamespace ? { operatorNamespace: config.operatorNamespace } : {}),
      projectedTokenDir: config.projectedTokenDir,
    });
    signals.signal.addEventListener('abort', () => void operator.stop(), { once: true });
    operator.ready.then(
      () => log.info({ namespaces: config.namespaces }, 'operator ready'),
      () => undefined,
    );
    const exit = await operator.exited;
    if (exit === 'lost') {
      log.error('leadership lost; exiting');
      return 1;
    }
    return 0;
  } catch (error) {
    log.fatal({ err: error }, 'operator failed');
    return 1;
  } finally {
    trimmer?.stop();
    signals.dispose();
  }
}
