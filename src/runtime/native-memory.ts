/**
 * The native memory addon (src/runtime/native/memory.c, compiled by `npm run build` to
 * `dist/native/memory.node`): returns memory Node has no API for — the node binary's resident
 * file pages and glibc malloc's unused arena memory. The heap trimmer calls it.
 *
 * Contract: `loadNativeMemory` never throws; it returns the addon, or the Error that says why it
 * cannot be loaded (not built — the operator run from its sources without `npm run build` —, not
 * Linux, not glibc), and the caller carries on without it.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { packageFile } from './package-root.ts';

export interface NativeMemory {
  /**
   * Unmaps the resident, unmodified pages of read-only private file mappings (the node binary's
   * code and read-only data, shared libraries); returns the bytes unmapped. They are copies of
   * the page cache and come back on their next use. Throws when /proc cannot be read.
   */
  releaseFilePages(): number;
  /**
   * Sets glibc's trim threshold to `trimThresholdBytes` and its mmap threshold to
   * `mmapThresholdBytes` (each when > 0) and returns malloc's unused memory; whether any was
   * released.
   */
  trimMalloc(trimThresholdBytes: number, mmapThresholdBytes: number): boolean;
}

/** Where `npm run build` writes the addon. */
export const nativeMemoryFile = packageFile('dist/native/memory.node');

/** Loads the addon from `file`; an Error instead when it cannot be loaded. */
export function loadNativeMemory(file: URL | string = nativeMemoryFile): NativeMemory | Error {
  if (process.platform !== 'linux') return new Error(`not supported on ${process.platform}`);
  const path = typeof file === 'string' ? file : fileURLToPath(file);
  try {
    return createRequire(import.meta.url)(path) as NativeMemory;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
