// The projected-token directory rules on the real file system: a kubelet-style projected volume
// (`token` → `..data/token` → `..<timestamp>/token`) is read, also through a symlinked directory
// (as /var/run → /run); paths outside it, `..` segments, symlinks leading out, non-regular and
// oversized files are refused before anything is read, and no error carries file content.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  maxProjectedTokenBytes,
  projectedPathProblem,
  readProjectedTokenFile,
} from './projected-token-file.ts';

const CANARY = `canary-${Math.random().toString(36).slice(2)}`;
let root = '';
let dir = '';
let outside = '';

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'coffer-projected-'));
  dir = join(root, 'serviceaccount');
  mkdirSync(join(dir, '..2026_01_01_00_00_00.1'), { recursive: true });
  writeFileSync(join(dir, '..2026_01_01_00_00_00.1', 'token'), 'header.payload.signature\n');
  symlinkSync('..2026_01_01_00_00_00.1', join(dir, '..data'));
  symlinkSync('..data/token', join(dir, 'token'));
  outside = join(root, 'outside');
  writeFileSync(outside, CANARY);
  symlinkSync(outside, join(dir, 'escape'));
  symlinkSync('../outside', join(dir, 'relative-escape'));
  mkdirSync(join(dir, 'subdir'));
  writeFileSync(join(dir, 'big'), `${CANARY}${'x'.repeat(maxProjectedTokenBytes)}`);
  writeFileSync(join(dir, 'exactly-max'), 'x'.repeat(maxProjectedTokenBytes));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  symlinkSync(dir, join(root, 'linked-dir'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The error `readProjectedTokenFile` throws, checked to carry no file content. */
async function refusal(path: string, allowed = dir): Promise<{ problem: string; message: string }> {
  const error = (await readProjectedTokenFile(path, allowed).then(
    () => {
      throw new Error(`${path} was read`);
    },
    (e: unknown) => e,
  )) as { problem: string; message: string };
  expect(error.message).not.toContain(CANARY);
  expect(JSON.stringify(error)).not.toContain(CANARY);
  return error;
}

describe('projectedPathProblem', () => {
  it('allows a normalized path strictly below the directory only', () => {
    const d = '/var/run/secrets/coffer.dev/serviceaccount';
    expect(projectedPathProblem(`${d}/token`, d)).toBeUndefined();
    expect(projectedPathProblem(`${d}/..data/token`, d)).toBeUndefined();
    expect(projectedPathProblem(d, d)).toMatch(/not in the projected-token directory/);
    expect(projectedPathProblem(`${d}-evil/token`, d)).toMatch(/not in the projected-token directory/);
    expect(projectedPathProblem('/proc/self/environ', d)).toBe(
      `it is not in the projected-token directory ${d} (--projected-token-dir)`,
    );
    expect(projectedPathProblem(`${d}/../../../../proc/self/environ`, d)).toBe(
      'it has an empty, . or .. segment',
    );
    expect(projectedPathProblem(`${d}//token`, d)).toBe('it has an empty, . or .. segment');
    expect(projectedPathProblem('token', d)).toBe('it is not an absolute path');
  });
});

describe('readProjectedTokenFile', () => {
  it('reads the kubelet’s token through its ..data links, also when the directory is a symlink', async () => {
    expect(await readProjectedTokenFile(join(dir, 'token'), dir)).toBe('header.payload.signature\n');
    const linked = join(root, 'linked-dir');
    expect(await readProjectedTokenFile(join(linked, 'token'), linked)).toBe('header.payload.signature\n');
    expect(await readProjectedTokenFile(join(dir, 'exactly-max'), dir)).toHaveLength(maxProjectedTokenBytes);
  });

  it.each([
    [
      'a file outside the directory',
      () => outside,
      /may not be read: it is not in the projected-token directory/,
    ],
    ['/proc/self/environ', () => '/proc/self/environ', /may not be read: it is not in the projected-token/],
    ['a .. escape', () => `${dir}/../outside`, /may not be read: it has an empty, \. or \.\. segment/],
    ['an absolute symlink leading out', () => join(dir, 'escape'), /through its symlinks it leads out/],
    [
      'a relative symlink leading out',
      () => join(dir, 'relative-escape'),
      /through its symlinks it leads out/,
    ],
  ])('refuses %s (TokenSourceNotAllowed)', async (_what, path, message) => {
    const error = await refusal(path());
    expect(error.problem).toBe('TokenSourceNotAllowed');
    expect(error.message).toMatch(message);
    expect(error.message).toContain(`the projected token file ${path()} `);
  });

  it.each([
    ['a directory', 'subdir', 'it is not a regular file'],
    ['a FIFO (without hanging)', 'fifo', 'it is not a regular file'],
    ['a file over the bound', 'big', `it is larger than ${maxProjectedTokenBytes} bytes`],
  ])('refuses %s (InvalidTokenFile)', async (_what, name, rule) => {
    const error = await refusal(join(dir, name));
    expect(error).toMatchObject({ problem: 'InvalidTokenFile' });
    expect(error.message).toBe(`the projected token file ${join(dir, name)} is not a token file: ${rule}`);
  });

  it('a missing file is unavailable (retried: the kubelet may not have written it yet)', async () => {
    const error = await refusal(join(dir, 'missing'));
    expect(error).toMatchObject({ problem: 'ServiceAccountTokenUnavailable' });
    expect(error.message).toMatch(/ENOENT/);
  });
});
