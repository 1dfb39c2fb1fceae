/**
 * The node's images, built here and imported into its containerd — never pulled: the pause image
 * (Kubernetes' pause.c from the k8s.io/kubernetes module source) and a probe image (probe.c next to
 * this file), each one static binary compiled with gcc in a one-layer docker archive.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { packageFile } from '../../../runtime/package-root.ts';

/** The sandbox image name containerd is configured with; the pause image is imported under it. */
export const pauseImage = 'coffer.local/pause:1';
/** A tiny image whose entrypoint `/probe` prints a line and waits; `/probe connect IP PORT` tests a connection. */
export const probeImage = 'coffer.local/probe:1';

/** Where Go keeps the k8s.io/kubernetes module source, which holds build/pause/linux/pause.c. */
function pauseSource(kubernetesVersion: string, env: NodeJS.ProcessEnv): string {
  const gopath = env['GOPATH'] || join(homedir(), 'go');
  const modCache = env['GOMODCACHE'] || join(gopath.split(':')[0] ?? gopath, 'pkg', 'mod');
  const path = join(modCache, `k8s.io/kubernetes@${kubernetesVersion}`, 'build/pause/linux/pause.c');
  if (!existsSync(path)) {
    throw new Error(
      `cannot build the pause image: ${path} not found (npm run control-plane:install downloads the module)`,
    );
  }
  return path;
}

/** Compiles `source` statically into `out` with gcc. */
function compileStatic(source: string, out: string): void {
  execFileSync('gcc', ['-static', '-O2', '-DVERSION=coffer', '-o', out, source], { stdio: 'pipe' });
}

/**
 * Writes a docker archive (manifest.json, config, one layer holding `binary` at `/<name>`) for
 * image `tag` with entrypoint `/<name>` to `archive`.
 */
function writeImageArchive(binary: string, name: string, tag: string, archive: string): void {
  const work = `${archive}.d`;
  mkdirSync(join(work, 'rootfs'), { recursive: true });
  copyFileSync(binary, join(work, 'rootfs', name));
  execFileSync('chmod', ['755', join(work, 'rootfs', name)]);
  execFileSync('tar', [
    '--owner=0',
    '--group=0',
    '-C',
    join(work, 'rootfs'),
    '-cf',
    join(work, 'layer.tar'),
    name,
  ]);
  const diffId = `sha256:${createHash('sha256')
    .update(readFileSync(join(work, 'layer.tar')))
    .digest('hex')}`;
  const config = {
    architecture: 'amd64',
    os: 'linux',
    config: { Entrypoint: [`/${name}`] },
    rootfs: { type: 'layers', diff_ids: [diffId] },
  };
  writeFileSync(join(work, 'config.json'), JSON.stringify(config));
  writeFileSync(
    join(work, 'manifest.json'),
    JSON.stringify([{ Config: 'config.json', RepoTags: [tag], Layers: ['layer.tar'] }]),
  );
  execFileSync('tar', ['-C', work, '-cf', archive, 'manifest.json', 'config.json', 'layer.tar']);
}

/** Builds the pause and probe images in `dir` and imports them into the containerd at `socket`. */
export function importNodeImages(
  dir: string,
  socket: string,
  kubernetesVersion: string,
  env: NodeJS.ProcessEnv = process.env,
): void {
  mkdirSync(dir, { recursive: true });
  const images = [
    { source: pauseSource(kubernetesVersion, env), name: 'pause', tag: pauseImage },
    {
      source: packageFile('src/sandbox/control-plane/node/probe.c').pathname,
      name: 'probe',
      tag: probeImage,
    },
  ];
  for (const image of images) {
    const binary = join(dir, image.name);
    const archive = join(dir, `${image.name}.tar`);
    compileStatic(image.source, binary);
    writeImageArchive(binary, image.name, image.tag, archive);
    execFileSync('ctr', ['--address', socket, '-n', 'k8s.io', 'images', 'import', archive], {
      stdio: 'pipe',
    });
  }
}
