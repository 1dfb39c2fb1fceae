/**
 * Reading a projected ServiceAccount token file named by a (Cluster)Connection's
 * `projected.path`, under rules that keep a connection from making the operator read (and then
 * send) any other file it can read:
 *
 * - the path is absolute, normalized (no empty, `.` or `..` segment) and lies in the
 *   projected-token directory (`--projected-token-dir`) as written;
 * - resolved through its symlinks (the kubelet's `token` → `..data/token` → `..<timestamp>/token`),
 *   it still lies in that directory, itself resolved (`TokenSourceNotAllowed` otherwise);
 * - it is a regular file of at most `maxProjectedTokenBytes`: its size is checked before it is
 *   read, and no more than one byte past the bound is ever read (`InvalidTokenFile` otherwise).
 *
 * Whether the content is a JWT for the right audience is checked by the caller
 * (`managed/connections/service-account-token.ts`). Errors name the path and the rule broken,
 * never the content; a file missing or unreadable is `ServiceAccountTokenUnavailable` (retried:
 * the kubelet may not have written it yet).
 */
import { constants } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { isNormalizedPath } from '../api/v1alpha1/index.ts';
import { ServiceAccountTokenError } from '../managed/connections/service-account-token.ts';

/** The largest token file read: a ServiceAccount JWT is one to a few KiB. */
export const maxProjectedTokenBytes = 16 * 1024;

/** True when `path` lies strictly below directory `dir` (both absolute and normalized). */
function isBelow(path: string, dir: string): boolean {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return path.startsWith(prefix) && path.length > prefix.length;
}

/** Why `path` may not be read as written (a rule, naming no file content), or undefined when it may. */
export function projectedPathProblem(path: string, dir: string): string | undefined {
  if (!path.startsWith('/')) return 'it is not an absolute path';
  if (!isNormalizedPath(path)) return 'it has an empty, . or .. segment';
  if (!isBelow(path, dir)) return `it is not in the projected-token directory ${dir} (--projected-token-dir)`;
  return undefined;
}

function notAllowed(path: string, rule: string): ServiceAccountTokenError {
  return new ServiceAccountTokenError(
    'TokenSourceNotAllowed',
    `the projected token file ${path} may not be read: ${rule}`,
  );
}

function invalid(path: string, rule: string): ServiceAccountTokenError {
  return new ServiceAccountTokenError(
    'InvalidTokenFile',
    `the projected token file ${path} is not a token file: ${rule}`,
  );
}

function unreadable(path: string, error: unknown): ServiceAccountTokenError {
  const code = (error as { code?: unknown } | null)?.code;
  return new ServiceAccountTokenError(
    'ServiceAccountTokenUnavailable',
    `cannot read the projected token file ${path}: ${typeof code === 'string' ? code : 'unreadable'}` +
      ' (is the token volume mounted at that path?)',
  );
}

/** Reads at most `maxProjectedTokenBytes + 1` bytes of an open regular file. */
async function readBounded(handle: FileHandle, path: string): Promise<string> {
  const stat = await handle.stat();
  if (!stat.isFile()) throw invalid(path, 'it is not a regular file');
  if (stat.size > maxProjectedTokenBytes)
    throw invalid(path, `it is larger than ${maxProjectedTokenBytes} bytes`);
  const buffer = Buffer.alloc(maxProjectedTokenBytes + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
    if (length > maxProjectedTokenBytes)
      throw invalid(path, `it is larger than ${maxProjectedTokenBytes} bytes`);
  }
  return buffer.toString('utf8', 0, length);
}

/** The content of the projected token file `path`, read under the rules above; `dir` is the allowed directory. */
export async function readProjectedTokenFile(path: string, dir: string): Promise<string> {
  const problem = projectedPathProblem(path, dir);
  if (problem) throw notAllowed(path, problem);
  let real: string;
  let realDir: string;
  try {
    [real, realDir] = await Promise.all([realpath(path), realpath(dir)]);
  } catch (error) {
    throw unreadable(path, error);
  }
  if (!isBelow(real, realDir))
    throw notAllowed(path, `through its symlinks it leads out of the projected-token directory ${dir}`);
  let handle: FileHandle;
  try {
    // The resolved path has no symlink left; O_NONBLOCK: opening a FIFO must not hang.
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    return await readBounded(handle, path);
  } catch (error) {
    if (error instanceof ServiceAccountTokenError) throw error;
    throw unreadable(path, error);
  } finally {
    await handle.close();
  }
}
