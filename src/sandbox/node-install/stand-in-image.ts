/**
 * A stand-in for the operator image, assembled from this machine's files instead of built from the
 * Dockerfile: the host's node binary and the shared libraries `ldd` lists for it and for the
 * native addon, `dist/` (`npm run build`), `bin/`, `crds/` and `package.json`, laid out as the
 * Dockerfile's runtime stage lays them out (`/nodejs/bin/node`, `/app`, user 65532, the same
 * entrypoint and environment). One layer in a docker archive that containerd imports.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageFile } from '../../runtime/package-root.ts';
import type { OperatorImage } from './operator-image.ts';

/** Absolute paths of the shared libraries `binary` loads, the dynamic loader included. */
function sharedLibraries(binary: string): string[] {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  return [...out.matchAll(/(\/\S+) \(0x/g)].map((match) => match[1] as string);
}

function copyInto(rootfs: string, path: string, target = path): void {
  const to = join(rootfs, target);
  mkdirSync(dirname(to), { recursive: true });
  cpSync(path, to, { dereference: true, recursive: true });
}

/** The files of the image below `rootfs`. */
function assembleRootfs(rootfs: string, nodeBinary: string): void {
  const root = packageFile('./').pathname;
  const addon = join(root, 'dist/native/memory.node');
  if (!existsSync(join(root, 'dist/cli/main.mjs')))
    throw new Error('cannot assemble the stand-in image: dist/ is missing (run `npm run build`)');
  copyInto(rootfs, nodeBinary, '/nodejs/bin/node');
  const libraries = new Set([
    ...sharedLibraries(nodeBinary),
    ...(existsSync(addon) ? sharedLibraries(addon) : []),
  ]);
  for (const library of libraries) copyInto(rootfs, library);
  for (const entry of ['dist', 'bin', 'crds', 'package.json'])
    copyInto(rootfs, join(root, entry), `/app/${entry}`);
  mkdirSync(join(rootfs, 'tmp'), { mode: 0o1777 });
  mkdirSync(join(rootfs, 'etc'), { recursive: true });
  writeFileSync(
    join(rootfs, 'etc/passwd'),
    'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n',
  );
}

/**
 * Assembles the stand-in image `reference` in `dir` (created; its previous content replaced) and
 * returns its docker archive. Throws when `dist/` has not been built.
 */
export function buildStandInOperatorImage(
  dir: string,
  reference: string,
  nodeBinary = process.execPath,
): OperatorImage {
  rmSync(dir, { recursive: true, force: true });
  const rootfs = join(dir, 'rootfs');
  mkdirSync(rootfs, { recursive: true });
  assembleRootfs(rootfs, nodeBinary);
  const layer = join(dir, 'layer.tar');
  execFileSync('tar', ['--owner=0', '--group=0', '--numeric-owner', '-C', rootfs, '-cf', layer, '.']);
  const diffId = `sha256:${createHash('sha256').update(readFileSync(layer)).digest('hex')}`;
  const config = {
    architecture: 'amd64',
    os: 'linux',
    config: {
      User: '65532:65532',
      WorkingDir: '/app',
      Env: ['NODE_ENV=production', 'MALLOC_ARENA_MAX=2'],
      Entrypoint: ['/nodejs/bin/node', '--max-semi-space-size=2', 'bin/coffer.js'],
      Cmd: ['operator'],
    },
    rootfs: { type: 'layers', diff_ids: [diffId] },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify([{ Config: 'config.json', RepoTags: [reference], Layers: ['layer.tar'] }]),
  );
  const archive = join(dir, 'image.tar');
  execFileSync('tar', ['-C', dir, '-cf', archive, 'manifest.json', 'config.json', 'layer.tar']);
  rmSync(rootfs, { recursive: true, force: true });
  rmSync(layer, { force: true });
  return { archive, reference };
}
