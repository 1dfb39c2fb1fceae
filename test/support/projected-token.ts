// A projected ServiceAccount token volume as the kubelet writes it, for tests of the operator's
// projected token: each write goes into a new timestamped directory, then a new `..data` symlink
// is renamed over the old one (atomic), and `token` links to `..data/token` (kubelet AtomicWriter).
import { existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let writes = 0;

/** Writes `token` as the file `token` of the projected volume `dir` (created when missing); returns its path. */
export function writeProjectedToken(dir: string, token: string): string {
  const stamp = `..${new Date().toISOString().replaceAll(/[-:]/g, '_')}.${++writes}`;
  mkdirSync(join(dir, stamp), { recursive: true });
  writeFileSync(join(dir, stamp, 'token'), token);
  symlinkSync(stamp, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  const path = join(dir, 'token');
  if (!existsSync(path)) symlinkSync('..data/token', path);
  return path;
}
