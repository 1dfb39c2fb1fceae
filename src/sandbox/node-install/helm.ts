/**
 * `helm install | upgrade | uninstall` of the repository's chart (`charts/coffer`) against one
 * cluster, with the cached helm binary and a private helm home (nothing read from or written to
 * the user's helm configuration). Values are passed as a file, as a user would.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageFile } from '../../runtime/package-root.ts';

const execFileAsync = promisify(execFile);

/** The repository's chart. */
export const chartDir = packageFile('charts/coffer/').pathname;

/** A Helm release of the chart in one namespace of one cluster. */
export class HelmRelease {
  readonly name: string;
  readonly namespace: string;
  readonly #helm: string;
  readonly #kubeconfig: string;
  readonly #home: string;

  constructor(init: { helm: string; kubeconfig: string; name: string; namespace: string }) {
    this.#helm = init.helm;
    this.#kubeconfig = init.kubeconfig;
    this.name = init.name;
    this.namespace = init.namespace;
    this.#home = mkdtempSync(join(tmpdir(), 'coffer-helm-'));
  }

  /** `helm install` with `values` (the namespace is created when missing). */
  install(values: object): Promise<string> {
    return this.#run(['install', this.name, chartDir, '--create-namespace'], values);
  }

  /** `helm upgrade` to `values` (the full set, not a patch). */
  upgrade(values: object): Promise<string> {
    return this.#run(['upgrade', this.name, chartDir], values);
  }

  /** `helm uninstall`, waiting for the release's objects to be deleted. */
  uninstall(): Promise<string> {
    return this.#run(['uninstall', this.name, '--wait']);
  }

  /** `helm status -o json`, parsed. */
  async status(): Promise<{ info?: { status?: string }; version?: number }> {
    return JSON.parse(await this.#run(['status', this.name, '-o', 'json'])) as {
      info?: { status?: string };
      version?: number;
    };
  }

  /** Removes the private helm home. */
  close(): void {
    rmSync(this.#home, { recursive: true, force: true });
  }

  async #run(args: string[], values?: object): Promise<string> {
    const all = [...args, '-n', this.namespace, '--kubeconfig', this.#kubeconfig];
    if (values) {
      const file = join(this.#home, 'values.json');
      writeFileSync(file, JSON.stringify(values));
      all.push('-f', file);
    }
    const home = this.#home;
    const env = { ...process.env, HELM_CACHE_HOME: home, HELM_CONFIG_HOME: home, HELM_DATA_HOME: home };
    try {
      const { stdout } = await execFileAsync(this.#helm, all, { env, maxBuffer: 16 * 1024 * 1024 });
      return stdout;
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? (error as Error).message;
      throw new Error(`cannot run helm ${args[0]}: ${stderr.trim()}`, { cause: error });
    }
  }
}
