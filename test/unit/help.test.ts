/**
 * Every command a user runs answers `--help` with its usage and exit status 0 (no stack trace, no
 * work done): each package.json script that runs one of this repository's scripts or the CLI,
 * the scripts started by other scripts, and every `coffer` subcommand that `coffer --help` lists.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packageFile } from '../../src/runtime/package-root.ts';

const execFileAsync = promisify(execFile);
const root = packageFile('.').pathname;

/** Runs a shell command line from the repository root; never throws. */
async function run(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync('sh', ['-c', command], { cwd: root, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const scripts = (
  JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;
/** The package.json scripts that run this repository's code (the others are vitest, tsc, eslint, prettier). */
const ownScripts = Object.entries(scripts).filter(([, command]) =>
  /^(node|bash) (scripts|src)\//.test(command),
);
/** Entry points that no package.json script names (started by another script). */
const otherEntryPoints = ['node scripts/bench/floor-controller.ts'];

function expectUsage(result: { code: number; stdout: string; stderr: string }): void {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^usage: \S/m);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

describe('--help', () => {
  it('covers the package.json scripts that take arguments', () => {
    expect(ownScripts.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'bench',
        'bench:devserver',
        'bench:floor',
        'sandbox',
        'devserver',
        'control-plane:install',
      ]),
    );
  });

  it.each(ownScripts)(
    'npm run %s -- --help prints the usage',
    async (_name, command) => {
      expectUsage(await run(`${command} --help`));
    },
    60_000,
  );

  it.each(otherEntryPoints)(
    '%s --help prints the usage',
    async (command) => {
      expectUsage(await run(`${command} --help`));
    },
    60_000,
  );

  it('is answered by every coffer subcommand', async () => {
    const overview = await run('node src/cli/main.ts --help');
    expectUsage(overview);
    const names = [...overview.stdout.matchAll(/^ {2}([a-z][\w-]*) /gm)].map((m) => m[1]);
    expect(names).toEqual(expect.arrayContaining(['crds', 'devserver', 'operator', 'sandbox', 'version']));
    for (const name of names) {
      const result = await run(`node src/cli/main.ts ${name} --help`);
      expectUsage(result);
      expect(result.stdout, name).toContain(`usage: coffer ${name}`);
    }
  }, 120_000);
});
