/**
 * What an OCI image archive (`buildah push … oci-archive:`) holds: its manifest digest, its size
 * as a registry stores it (compressed layers and config) and unpacked (uncompressed layers), and
 * its configuration.
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { runCommand } from './command.ts';

/** The image configuration's `config` (OCI image spec), the fields Coffer's image sets. */
export interface ImageConfig {
  readonly User?: string;
  readonly Entrypoint?: string[];
  readonly Cmd?: string[];
  readonly Env?: string[];
  readonly WorkingDir?: string;
  readonly ExposedPorts?: Record<string, object>;
  readonly Labels?: Record<string, string>;
}

/** An archive's image, as read from its index, manifest and config. */
export interface ArchiveImage {
  /** The manifest's digest (`sha256:…`): the image's identity in a registry and in containerd. */
  readonly digest: string;
  /** Layers and config as stored (gzip-compressed layers). */
  readonly compressedBytes: number;
  /** The layers uncompressed. */
  readonly unpackedBytes: number;
  /** The uncompressed digests of the layers, bottom first. */
  readonly diffIds: readonly string[];
  readonly config: ImageConfig;
}

interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
}

function blobPath(dir: string, digest: string): string {
  return join(dir, 'blobs', ...digest.split(':'));
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** The number of bytes of the gunzipped file `path`. */
async function gunzippedBytes(path: string): Promise<number> {
  let bytes = 0;
  for await (const chunk of createReadStream(path).pipe(createGunzip())) bytes += (chunk as Buffer).length;
  return bytes;
}

/** Reads the single image of the OCI archive `archive`. */
export async function readArchive(archive: string): Promise<ArchiveImage> {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-image-archive-'));
  try {
    await runCommand('tar', ['-xf', archive, '-C', dir]);
    const index = readJson<{ manifests: Descriptor[] }>(join(dir, 'index.json'));
    const [descriptor] = index.manifests;
    if (!descriptor || index.manifests.length !== 1) {
      throw new Error(`${archive}: expected one image, found ${index.manifests.length}`);
    }
    const manifest = readJson<{ config: Descriptor; layers: Descriptor[] }>(blobPath(dir, descriptor.digest));
    const image = readJson<{ config: ImageConfig; rootfs: { diff_ids: string[] } }>(
      blobPath(dir, manifest.config.digest),
    );
    let unpackedBytes = 0;
    for (const layer of manifest.layers) {
      const path = blobPath(dir, layer.digest);
      unpackedBytes += layer.mediaType.endsWith('gzip') ? await gunzippedBytes(path) : layer.size;
    }
    const compressedBytes = manifest.layers.reduce((sum, layer) => sum + layer.size, manifest.config.size);
    return {
      digest: descriptor.digest,
      compressedBytes,
      unpackedBytes,
      diffIds: image.rootfs.diff_ids,
      config: image.config,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
