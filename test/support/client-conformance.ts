/**
 * Runs a real, third-party client of the service (an official SDK driven by a small program under
 * `test/clients/<name>/`) against a devserver and returns its report of every call.
 *
 * Contract for a client program:
 * - it is built by a command run in its source folder that writes one executable to `$OUT`;
 * - it reads its target (URL, credentials, project) from the environment given to {@link runClient};
 * - it prints one JSON {@link ClientReport} on stdout and exits 0 (exit code 2: bad environment);
 * - it never prints a token or a secret value.
 *
 * Builds are cached under `<cache>/bin/clients/<name>-<hash>/` (the cache of
 * `scripts/control-plane/install.sh`, `$COFFER_CACHE_DIR` or `~/.cache/coffer`), keyed by a hash
 * of the program's sources and the toolchain version, so an unchanged program is built once (a
 * new build removes the earlier ones). A missing toolchain is an error, never a skip.
 *
 * Adding the next client: a folder under test/clients/, a {@link ClientProgram} describing how to
 * build it, and a test that calls {@link buildClient} then {@link runClient} and asserts each call.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir } from './control-plane-binaries.ts';

const execFileAsync = promisify(execFile);

/** How to build one client program. */
export interface ClientProgram {
  /** Short name, used for the cache folder and the binary (e.g. `go-sdk`). */
  readonly name: string;
  /** Absolute path of the program's source folder. */
  readonly sourceDir: string;
  /** The toolchain command (e.g. `go`); it must be on PATH. */
  readonly toolchain: string;
  /** Arguments that print the toolchain's version (part of the cache key). */
  readonly versionArgs: readonly string[];
  /** Arguments that build the program into the path given as `$OUT`. */
  readonly buildArgs: (out: string) => readonly string[];
  /** Extra environment for the build. */
  readonly buildEnv?: Readonly<Record<string, string>>;
}

/** One call of the client, as its program reports it. */
export interface ClientCall {
  readonly name: string;
  readonly ok: boolean;
  /** HTTP status of a failed call, when the client saw one. */
  readonly status?: number;
  readonly error?: string;
  readonly detail?: Record<string, unknown>;
}

/** What a client program prints. */
export interface ClientReport {
  readonly client: string;
  readonly calls: readonly ClientCall[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .sort();
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function toolchainVersion(program: ClientProgram): Promise<string> {
  try {
    const { stdout } = await execFileAsync(program.toolchain, [...program.versionArgs]);
    return stdout.trim();
  } catch (error) {
    throw new Error(
      `cannot build the ${program.name} conformance client: '${program.toolchain}' is not installed or not on PATH`,
      { cause: error },
    );
  }
}

/** The cache key: the toolchain version plus every source file's path and content. */
export async function sourceHash(program: ClientProgram): Promise<string> {
  const hash = createHash('sha256').update(await toolchainVersion(program));
  for (const file of sourceFiles(program.sourceDir)) {
    hash.update(relative(program.sourceDir, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The path of the built client, building it when the cache has no build of these sources. The
 * build goes to a temporary folder and is moved into place only when complete.
 */
export async function buildClient(
  program: ClientProgram,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const dir = join(cacheDir(env), 'bin', 'clients', `${program.name}-${await sourceHash(program)}`);
  const binary = join(dir, program.name);
  if (isExecutable(binary)) return binary;
  await mkdir(join(cacheDir(env), 'bin', 'clients'), { recursive: true });
  const work = await mkdtemp(join(cacheDir(env), 'bin', 'clients', `.${program.name}-build-`));
  try {
    const out = join(work, program.name);
    try {
      await execFileAsync(program.toolchain, [...program.buildArgs(out)], {
        cwd: program.sourceDir,
        env: { ...env, ...program.buildEnv },
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? '';
      throw new Error(`cannot build the ${program.name} conformance client: ${stderr.trim()}`, {
        cause: error,
      });
    }
    await rm(dir, { recursive: true, force: true });
    await rename(work, dir);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  await removeOtherBuilds(program.name, dir);
  return binary;
}

/** Removes earlier builds of the program (other source hashes), keeping `keep`. */
async function removeOtherBuilds(name: string, keep: string): Promise<void> {
  const parent = dirname(keep);
  const stale = readdirSync(parent).filter((d) => d.startsWith(`${name}-`) && join(parent, d) !== keep);
  await Promise.all(stale.map((d) => rm(join(parent, d), { recursive: true, force: true })));
}

/** Runs a built client with `env` (added to a minimal environment) and parses its report. */
export async function runClient(
  binary: string,
  env: Readonly<Record<string, string>>,
  timeoutMs = 120_000,
): Promise<ClientReport> {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  let stdout: string;
  try {
    ({ stdout } = await execFileAsync(binary, [], { env: { ...base, ...env }, timeout: timeoutMs }));
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`conformance client ${binary} failed: ${stderr.trim()}`, { cause: error });
  }
  return JSON.parse(stdout) as ClientReport;
}

/** The report's call `name`; fails when the client made no such call. */
export function callNamed(report: ClientReport, name: string): ClientCall {
  const call = report.calls.find((c) => c.name === name);
  if (!call) throw new Error(`the ${report.client} report has no call named ${name}`);
  return call;
}
