/**
 * A containerd of the test's own (root, state, socket in a temporary directory; no CRI plugin),
 * for running an image with `ctr run` without a node: the image runs with its configuration
 * (user, working directory, environment) as a Pod's container would, under runc.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './wait-for.ts';

const execFileAsync = promisify(execFile);

/** A running private containerd; {@link PrivateContainerd.stop} removes it and its directory. */
export interface PrivateContainerd {
  readonly socket: string;
  readonly namespace: string;
  /** `ctr run --rm <reference> <id> [args]`: the process's stdout, or a rejection with its stderr. */
  run(reference: string, args?: readonly string[]): Promise<string>;
  stop(): Promise<void>;
}

function config(dir: string): string {
  return `version = 2
root = "${dir}/root"
state = "${dir}/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "${dir}/containerd.sock"
[ttrpc]
  address = "${dir}/containerd-ttrpc.sock"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "${dir}/opt"
`;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts containerd and resolves once it answers on its socket. */
export async function startPrivateContainerd(namespace = 'coffer-image-test'): Promise<PrivateContainerd> {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-containerd-'));
  writeFileSync(join(dir, 'config.toml'), config(dir));
  const socket = join(dir, 'containerd.sock');
  const child = spawn('containerd', ['--config', join(dir, 'config.toml')], { stdio: 'ignore' });
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    await exited(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(() => execFileAsync('ctr', ['--address', socket, 'version']).then(() => true), {
      timeoutMs: 30_000,
      message: 'the private containerd to answer',
    });
  } catch (error) {
    await stop();
    throw error;
  }
  let runs = 0;
  const run = async (reference: string, args: readonly string[] = []): Promise<string> => {
    const id = `coffer-image-test-${process.pid}-${++runs}`;
    const { stdout } = await execFileAsync('ctr', [
      '--address',
      socket,
      '-n',
      namespace,
      'run',
      '--rm',
      reference,
      id,
      ...args,
    ]);
    return stdout;
  };
  return { socket, namespace, run, stop };
}
