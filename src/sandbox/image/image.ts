/**
 * The operator's image, built on this machine from the project's own Dockerfile with buildah
 * (daemonless, `--pull=never`) on the local base images of bases.ts, written as an OCI archive
 * that `ctr images import` loads into a containerd (a node's, for its Pods).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageFile } from '../../runtime/package-root.ts';
import { cacheDir } from '../control-plane/binaries.ts';
import { readArchive, type ImageConfig } from './archive.ts';
import { ensureBaseImages, type BaseImages } from './bases.ts';
import { buildah, imageStorage } from './buildah.ts';
import { runCommand } from './command.ts';

/** The name the image is built and imported under unless told otherwise. */
export const defaultImageReference = 'coffer.local/coffer:dev';

export interface BuildOperatorImageOptions {
  /** The image's name (default {@link defaultImageReference}). */
  readonly reference?: string;
  /** Where to write the OCI archive (default `<cache>/image/<name>-<tag>.oci.tar`). */
  readonly archive?: string;
  /** `$COFFER_CACHE_DIR` or `~/.cache/coffer` unless given: image storage, base images, archive. */
  readonly env?: NodeJS.ProcessEnv;
  /** Receives each line buildah, mmdebstrap and npm write (default: dropped). */
  readonly onOutput?: (line: string) => void;
}

/** A built image. */
export interface OperatorImage {
  /** The OCI archive, for `ctr images import` (see {@link importImage}). */
  readonly archive: string;
  /** The image's name inside the archive, and after import. */
  readonly reference: string;
  /** The manifest digest (`sha256:…`), as containerd lists it after import. */
  readonly digest: string;
  /** Layers and config as a registry stores them (gzip). */
  readonly compressedBytes: number;
  /** The layers uncompressed. */
  readonly unpackedBytes: number;
  /** Wall-clock seconds of the whole build, base images included when they were built. */
  readonly seconds: number;
  /** The base images the Dockerfile was built on, and whether this build made them. */
  readonly bases: BaseImages;
  /** The image's configuration (user, entrypoint, command, environment, labels). */
  readonly config: ImageConfig;
  /** The uncompressed digests of the image's layers, bottom first. */
  readonly diffIds: readonly string[];
}

/**
 * Build-time trust for `RUN npm ci`: the machine's CA bundle and an npmrc naming it, mounted into
 * the build's RUN steps only (never into a layer), so a registry reached through this machine's
 * TLS-inspecting egress verifies as it does for the machine's own npm.
 */
function hostTrustVolumes(work: string): string[] {
  const bundle = '/etc/ssl/certs/ca-certificates.crt';
  if (!existsSync(bundle)) return [];
  const npmrc = join(work, 'npmrc');
  writeFileSync(npmrc, 'cafile=/usr/local/etc/host-ca.crt\n');
  return ['-v', `${bundle}:/usr/local/etc/host-ca.crt:ro`, '-v', `${npmrc}:/usr/local/etc/npmrc:ro`];
}

/** The commit of the checkout, or `unknown` outside a git work tree. */
async function revision(root: string): Promise<string> {
  try {
    return (await runCommand('git', ['-C', root, 'rev-parse', 'HEAD'])).trim();
  } catch {
    return 'unknown';
  }
}

/**
 * Builds the operator's image from the Dockerfile at the package root (its own build context and
 * .dockerignore), the build stage on host networking so `npm ci` reaches the npm registry, with
 * buildah's layer cache; writes it as an OCI archive and reads its digest and sizes back.
 */
export async function buildOperatorImage(options: BuildOperatorImageOptions = {}): Promise<OperatorImage> {
  const started = performance.now();
  const cache = cacheDir(options.env);
  const work = join(cache, 'image');
  mkdirSync(work, { recursive: true });
  const storage = imageStorage(cache);
  const reference = options.reference ?? defaultImageReference;
  const archive = options.archive ?? join(work, `${reference.replace(/.*\//, '').replace(':', '-')}.oci.tar`);
  const run = { onOutput: options.onOutput };
  const bases = await ensureBaseImages(storage, join(work, 'bases'), run);
  const root = packageFile('').pathname;
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string })
    .version;
  await buildah(
    storage,
    [
      'bud',
      '--pull=never',
      '--layers',
      '--network=host',
      ...hostTrustVolumes(work),
      '--build-arg',
      `NODE_IMAGE=${bases.node}`,
      '--build-arg',
      `RUNTIME_IMAGE=${bases.runtime}`,
      '--build-arg',
      `VERSION=${version}`,
      '--build-arg',
      `REVISION=${await revision(root)}`,
      '-f',
      join(root, 'Dockerfile'),
      '-t',
      reference,
      root,
    ],
    run,
  );
  rmSync(archive, { force: true });
  await buildah(storage, ['push', '--quiet', reference, `oci-archive:${archive}:${reference}`], run);
  const image = await readArchive(archive);
  const seconds = (performance.now() - started) / 1000;
  return { archive, reference, seconds, bases, ...image };
}

/**
 * Imports the image archive `archive` into the containerd at `socket` (a node's
 * `<node dir>/containerd.sock`), in the namespace the kubelet uses unless told otherwise; Pods
 * on that node then run it by name with `imagePullPolicy: Never` or `IfNotPresent`.
 */
export async function importImage(archive: string, socket: string, namespace = 'k8s.io'): Promise<void> {
  await runCommand('ctr', ['--address', socket, '-n', namespace, 'images', 'import', archive]);
}
