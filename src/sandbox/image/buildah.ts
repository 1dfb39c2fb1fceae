/**
 * buildah against Coffer's own image storage, `<cache>/image/storage` (overlay driver), never the
 * machine's /var/lib/containers: the base images and the layer cache of `npm run image` and the
 * tests live beside the other cached tools, and removing that directory starts from nothing.
 */
import { join } from 'node:path';
import { runCommand, type CommandOptions } from './command.ts';

/** Where buildah keeps images and layers (`root`) and its run-time state (`runroot`). */
export interface ImageStorage {
  readonly root: string;
  readonly runroot: string;
}

/** The image storage under the cache directory `cache`. */
export function imageStorage(cache: string): ImageStorage {
  return { root: join(cache, 'image', 'storage'), runroot: join(cache, 'image', 'runroot') };
}

/** Runs `buildah <args>` on `storage`; resolves with its stdout. */
export function buildah(
  storage: ImageStorage,
  args: readonly string[],
  options: CommandOptions = {},
): Promise<string> {
  const global = ['--root', storage.root, '--runroot', storage.runroot, '--storage-driver', 'overlay'];
  return runCommand('buildah', [...global, ...args], options);
}

/** Whether `storage` holds an image named `reference`. */
export async function hasImage(storage: ImageStorage, reference: string): Promise<boolean> {
  try {
    await buildah(storage, ['inspect', '--type', 'image', '--format', '{{.FromImageID}}', reference]);
    return true;
  } catch {
    return false;
  }
}
