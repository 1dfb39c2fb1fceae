/**
 * The engine of `npm run generate`: runs the generator modules, puts their files and marker
 * regions together and compares the result with the files under a root directory. Writing and
 * checking share {@link planGeneration}, so `--check` reports exactly what a run would change.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { GeneratedRegion, Generator } from './types.ts';

/** One file a run changes: written with `content`, or deleted (stale) when `content` is undefined. */
export interface PlannedChange {
  readonly path: string;
  readonly content: string | undefined;
  readonly why: 'missing' | 'differs' | 'stale';
}

function readOrUndefined(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

function filesUnder(root: string, dir: string): string[] {
  const full = join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(root.length + 1)
        .split('\\')
        .join('/'),
    );
}

/**
 * `text` with the region between the line holding `<!-- generated:name -->` and the line holding
 * `<!-- /generated:name -->` replaced (Markdown); in files with `#` comments (YAML, Dockerfile)
 * the markers are `# generated:name` and `# /generated:name`.
 */
export function replaceRegion(text: string, region: GeneratedRegion): string {
  const markdown = text.includes(`<!-- generated:${region.name} -->`);
  const open = markdown ? `<!-- generated:${region.name} -->` : `# generated:${region.name}`;
  const close = markdown ? `<!-- /generated:${region.name} -->` : `# /generated:${region.name}`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start)
    throw new Error(`cannot generate region ${region.name} of ${region.path}: its markers are missing`);
  const bodyStart = text.indexOf('\n', start) + 1;
  const bodyEnd = text.lastIndexOf('\n', end) + 1;
  return text.slice(0, bodyStart) + region.content + text.slice(bodyEnd);
}

/** Every generated path → content, with regions applied to the files as they are under `root`. */
async function expectedFiles(root: string, generators: readonly Generator[]) {
  const files = new Map<string, string>();
  const owned: string[] = [];
  const regions: GeneratedRegion[] = [];
  for (const generator of generators) {
    const output = await generator.generate();
    for (const file of output.files ?? []) {
      if (files.has(file.path)) throw new Error(`cannot generate ${file.path}: two generators write it`);
      files.set(file.path, file.content);
    }
    regions.push(...(output.regions ?? []));
    owned.push(...(output.ownedDirs ?? []));
  }
  for (const region of regions) {
    const current = files.get(region.path) ?? readOrUndefined(join(root, region.path));
    if (current === undefined)
      throw new Error(`cannot generate region ${region.name}: ${region.path} is missing`);
    files.set(region.path, replaceRegion(current, region));
  }
  return { files, owned };
}

/** What a run of `generators` would change under `root` (empty: everything is up to date). */
export async function planGeneration(
  root: string,
  generators: readonly Generator[],
): Promise<PlannedChange[]> {
  const { files, owned } = await expectedFiles(root, generators);
  const changes: PlannedChange[] = [];
  for (const [path, content] of files) {
    const current = readOrUndefined(join(root, path));
    if (current !== content)
      changes.push({ path, content, why: current === undefined ? 'missing' : 'differs' });
  }
  for (const path of owned.flatMap((dir) => filesUnder(root, dir))) {
    if (!files.has(path)) changes.push({ path, content: undefined, why: 'stale' });
  }
  return changes;
}

/** Applies planned changes under `root`. */
export function applyChanges(root: string, changes: readonly PlannedChange[]): void {
  for (const change of changes) {
    const full = join(root, change.path);
    if (change.content === undefined) {
      rmSync(full);
      continue;
    }
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, change.content);
  }
}
