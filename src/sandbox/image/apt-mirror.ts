/**
 * The Debian mirror this machine's apt uses for a suite, read from /etc/apt/sources.list and
 * /etc/apt/sources.list.d/ (one-line `.list` and deb822 `.sources` files), so the base images
 * come from the same mirror as the machine's own packages.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Used when no apt source names the suite. */
export const defaultDebianMirror = 'http://deb.debian.org/debian';

/** The `deb` sources of a one-line style file: each a URI and its suite. */
function oneLineSources(text: string): { uri: string; suites: string[] }[] {
  const sources: { uri: string; suites: string[] }[] = [];
  for (const raw of text.split('\n')) {
    const words = raw
      .replace(/#.*/, '')
      .replace(/\[[^\]]*\]/, '')
      .trim()
      .split(/\s+/);
    if (words[0] === 'deb' && words[1] && words[2]) sources.push({ uri: words[1], suites: [words[2]] });
  }
  return sources;
}

/** The `deb` sources of a deb822 file: each stanza's URIs and Suites. */
function deb822Sources(text: string): { uri: string; suites: string[] }[] {
  const sources: { uri: string; suites: string[] }[] = [];
  for (const stanza of text.split(/\n\s*\n/)) {
    const field = (name: string): string[] =>
      stanza
        .match(new RegExp(`^${name}:\\s*(.*)$`, 'mi'))?.[1]
        ?.trim()
        .split(/\s+/) ?? [];
    if (!field('Types').includes('deb')) continue;
    for (const uri of field('URIs')) sources.push({ uri, suites: field('Suites') });
  }
  return sources;
}

/** The files apt reads its sources from under `etcApt`. */
function sourceFiles(etcApt: string): string[] {
  const files = [join(etcApt, 'sources.list')];
  const dir = join(etcApt, 'sources.list.d');
  if (existsSync(dir)) {
    for (const name of readdirSync(dir).sort()) files.push(join(dir, name));
  }
  return files.filter((file) => existsSync(file));
}

/** The first mirror apt under `etcApt` uses for `suite`, else {@link defaultDebianMirror}. */
export function debianMirror(suite: string, etcApt = '/etc/apt'): string {
  for (const file of sourceFiles(etcApt)) {
    const text = readFileSync(file, 'utf8');
    const sources = file.endsWith('.sources') ? deb822Sources(text) : oneLineSources(text);
    const match = sources.find((source) => source.suites.includes(suite));
    if (match) return match.uri.replace(/\/+$/, '');
  }
  return defaultDebianMirror;
}
