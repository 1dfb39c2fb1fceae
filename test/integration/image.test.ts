/**
 * The operator's image as users get it: built from the project's Dockerfile (buildah,
 * src/sandbox/image/) on local stand-ins for its base images, passed through the Dockerfile's own
 * NODE_IMAGE and RUNTIME_IMAGE build arguments; imported into a containerd and run there with
 * runc: as the non-root user 65532, through the Dockerfile's entrypoint, with no shell or package
 * manager in it. The first run on a machine builds the base images (minutes); later runs reuse
 * them and buildah's layer cache.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageFile } from '../../src/runtime/package-root.ts';
import { tuningEnv } from '../../src/runtime/process-tuning.ts';
import { cacheDir } from '../../src/sandbox/control-plane/binaries.ts';
import { buildah, imageStorage } from '../../src/sandbox/image/buildah.ts';
import { buildOperatorImage, importImage, type OperatorImage } from '../../src/sandbox/image/image.ts';
import { startPrivateContainerd, type PrivateContainerd } from '../support/private-containerd.ts';

const execFileAsync = promisify(execFile);
const dockerfile = readFileSync(packageFile('Dockerfile'), 'utf8');
const packageVersion = (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string })
  .version;

/** The argument of the Dockerfile's (last) `instruction` line. */
function instruction(name: string): string {
  const lines = dockerfile.split('\n').filter((line) => line.startsWith(`${name} `));
  const last = lines.at(-1);
  if (!last) throw new Error(`the Dockerfile has no ${name}`);
  return last.slice(name.length + 1).trim();
}

/** A script for the image's node that prints what `expression` evaluates to, as JSON. */
function nodeEval(expression: string): string[] {
  return ['/nodejs/bin/node', '-e', `console.log(JSON.stringify(${expression}))`];
}

let image: OperatorImage;
let containerd: PrivateContainerd;

beforeAll(async () => {
  image = await buildOperatorImage({ onOutput: (line) => console.log(`[image] ${line}`) });
  console.log(`[image] ${image.reference} ${image.digest} built in ${image.seconds.toFixed(1)} s`);
  containerd = await startPrivateContainerd();
  await importImage(image.archive, containerd.socket, containerd.namespace);
}, 1_200_000);

afterAll(async () => {
  await containerd?.stop();
});

describe('the operator image', () => {
  it('is the Dockerfile built on the local base images, labelled with this version and commit', async () => {
    const inspected = JSON.parse(
      await buildah(imageStorage(cacheDir()), ['inspect', '--type', 'image', image.bases.runtime]),
    ) as { OCIv1: { rootfs: { diff_ids: string[] } } };
    const runtimeLayers = inspected.OCIv1.rootfs.diff_ids;
    expect(runtimeLayers.length).toBeGreaterThan(0);
    expect(image.diffIds.slice(0, runtimeLayers.length)).toEqual(runtimeLayers);
    expect(image.diffIds.length).toBeGreaterThan(runtimeLayers.length);
    const { stdout: head } = await execFileAsync('git', ['rev-parse', 'HEAD']);
    expect(image.config.Labels).toMatchObject({
      'org.opencontainers.image.title': 'coffer',
      'org.opencontainers.image.version': packageVersion,
      'org.opencontainers.image.revision': head.trim(),
      'org.opencontainers.image.base.name': image.bases.runtime,
    });
  });

  it('has the Dockerfile entrypoint, command, user, working directory and environment', () => {
    expect(image.config.Entrypoint).toEqual(JSON.parse(instruction('ENTRYPOINT')));
    expect(image.config.Cmd).toEqual(JSON.parse(instruction('CMD')));
    expect(image.config.User).toBe(instruction('USER'));
    expect(image.config.WorkingDir).toBe('/app');
    const tuning = Object.entries(tuningEnv()).map(([name, value]) => `${name}=${value}`);
    expect(image.config.Env).toEqual(expect.arrayContaining(['NODE_ENV=production', ...tuning]));
    expect(Object.keys(image.config.ExposedPorts ?? {}).sort()).toEqual(['8080/tcp', '8081/tcp']);
  });

  it('is listed by the containerd it was imported into under its name and digest', async () => {
    const { stdout } = await execFileAsync('ctr', [
      '--address',
      containerd.socket,
      '-n',
      containerd.namespace,
      'images',
      'ls',
      '--quiet',
    ]);
    expect(stdout.split('\n')).toContain(image.reference);
    const { stdout: listing } = await execFileAsync('ctr', [
      '--address',
      containerd.socket,
      '-n',
      containerd.namespace,
      'images',
      'ls',
    ]);
    expect(listing).toContain(image.digest);
  });

  it('runs as the non-root user 65532 and cannot write its own files', async () => {
    const seen = JSON.parse(
      await containerd.run(
        image.reference,
        nodeEval(
          `{ uid: process.getuid(), gid: process.getgid(), cwd: process.cwd(),
             writable: ['/app', '/app/dist', '/app/bin/coffer.js'].filter((p) => {
               try { require('fs').accessSync(p, require('fs').constants.W_OK); return true; } catch { return false; }
             }) }`,
        ),
      ),
    ) as { uid: number; gid: number; cwd: string; writable: string[] };
    expect(seen).toEqual({ uid: 65532, gid: 65532, cwd: '/app', writable: [] });
  });

  it('runs `coffer version` and `coffer operator --help` through its entrypoint', async () => {
    const entrypoint = image.config.Entrypoint ?? [];
    expect(await containerd.run(image.reference, [...entrypoint, 'version'])).toBe(
      `coffer ${packageVersion}\n`,
    );
    expect(await containerd.run(image.reference, [...entrypoint, 'operator', '--help'])).toContain(
      'usage: coffer operator',
    );
  });

  it('has no shell or package manager, and has CA certificates and time zone data', async () => {
    await expect(containerd.run(image.reference, ['/bin/sh', '-c', 'true'])).rejects.toThrow(
      /no such file or directory/,
    );
    const paths = [
      '/bin/sh',
      '/bin/bash',
      '/usr/bin/sh',
      '/usr/bin/apt-get',
      '/usr/bin/dpkg',
      '/usr/local/bin/npm',
      '/etc/ssl/certs/ca-certificates.crt',
      '/usr/share/zoneinfo/Europe/Paris',
    ];
    const present = JSON.parse(
      await containerd.run(
        image.reference,
        nodeEval(`${JSON.stringify(paths)}.filter((p) => require('fs').existsSync(p))`),
      ),
    ) as string[];
    expect(present).toEqual(['/etc/ssl/certs/ca-certificates.crt', '/usr/share/zoneinfo/Europe/Paris']);
  });
});
