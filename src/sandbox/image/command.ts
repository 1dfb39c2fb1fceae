/** Runs the external tools the image build uses (buildah, mmdebstrap, npm, ctr, tar). */
import { spawn } from 'node:child_process';

/** How a command runs: where, with which environment, and who sees its output as it comes. */
export interface CommandOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Receives each line the command writes (stdout and stderr) as it writes it. */
  readonly onOutput?: (line: string) => void;
}

const TAIL_LINES = 30;

/**
 * Runs `command args` to completion and resolves with its stdout. Rejects when it cannot start or
 * exits non-zero; the error names the command and quotes the last lines it wrote.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: CommandOptions = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const tail: string[] = [];
    const collect = (chunk: Buffer): void => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        options.onOutput?.(line);
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      collect(chunk);
    });
    child.stderr.on('data', collect);
    child.on('error', (error) => reject(new Error(`cannot run ${command}: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) resolve(stdout);
      else {
        const how = signal ? `signal ${signal}` : `exit status ${code}`;
        reject(new Error(`${command} ${args[0] ?? ''} failed (${how}):\n${tail.join('\n')}`));
      }
    });
  });
}
