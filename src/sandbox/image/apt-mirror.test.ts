import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { debianMirror, defaultDebianMirror } from './apt-mirror.ts';

let dir: string;

function etcApt(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), 'coffer-apt-'));
  mkdirSync(join(dir, 'sources.list.d'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('debianMirror', () => {
  it('reads the URI serving the suite from a deb822 file, skipping other suites and deb-src', () => {
    const apt = etcApt({
      'sources.list.d/debian.sources': [
        'Types: deb-src',
        'URIs: http://src.example/debian',
        'Suites: bookworm',
        '',
        'Types: deb',
        'URIs: http://security.example/debian-security',
        'Suites: bookworm-security',
        '',
        'Types: deb',
        'URIs: http://mirror.example/debian/',
        'Suites: bookworm bookworm-updates',
        'Components: main',
      ].join('\n'),
    });
    expect(debianMirror('bookworm', apt)).toBe('http://mirror.example/debian');
  });

  it('reads one-line sources.list entries with options and comments', () => {
    const apt = etcApt({
      'sources.list': [
        '# deb http://commented.example/debian bookworm main',
        'deb [arch=amd64 signed-by=/k.gpg] http://other.example/x nodistro main',
        'deb [signed-by=/k.gpg] http://mirror.example/debian bookworm main',
      ].join('\n'),
    });
    expect(debianMirror('bookworm', apt)).toBe('http://mirror.example/debian');
  });

  it('falls back to deb.debian.org when no source names the suite', () => {
    const apt = etcApt({ 'sources.list.d/other.list': 'deb http://other.example/x nodistro main\n' });
    expect(debianMirror('bookworm', apt)).toBe(defaultDebianMirror);
  });
});
