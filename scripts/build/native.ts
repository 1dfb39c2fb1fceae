/**
 * Compiles the native memory addon (src/runtime/native/memory.c, a Node-API module) into a
 * `.node` file with the machine's C compiler (`$CC`, default `cc`) against the headers of the
 * node that runs this script (`<prefix>/include/node`, shipped with Node's release builds and the
 * npm `node` package). Fails — never skips — when the compiler or the headers are missing: the
 * image and the benchmarks must measure the operator users run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

/** The addon's C source. */
export const nativeMemorySource = join(root, 'src', 'runtime', 'native', 'memory.c');

/** Where Node's C headers are for the node running this process. */
export function nodeHeaders(execPath = process.execPath): string {
  const dir = join(dirname(execPath), '..', 'include', 'node');
  if (!existsSync(join(dir, 'node_api.h'))) {
    throw new Error(`node's C headers are not at ${dir} (node_api.h); install a Node release build`);
  }
  return dir;
}

/** Compiles the addon to `outFile`; throws with the compiler's output on failure. */
export function buildNativeMemory(outFile: string, cc = process.env.CC || 'cc'): void {
  mkdirSync(dirname(outFile), { recursive: true });
  const args = ['-O2', '-Wall', '-Wextra', '-Werror', '-shared', '-fPIC', '-fvisibility=hidden'];
  try {
    execFileSync(cc, [...args, `-I${nodeHeaders()}`, '-o', outFile, nativeMemorySource], { stdio: 'pipe' });
  } catch (error) {
    const output = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(
      `cannot compile ${nativeMemorySource} with ${cc}: ${(error as Error).message}\n${output}`,
      { cause: error },
    );
  }
}
