/**
 * The package's root directory (where `package.json`, `crds/`, `config/` and `scripts/` are), as
 * a file URL ending in `/`.
 *
 * Contract: this module sits two directories below the root both as a source file
 * (`src/runtime/`) and inside the bundle `npm run build` writes (`dist/cli/main.mjs` or
 * `dist/chunks/*.mjs`), so one relative URL is right in both. Resolve package files against this
 * URL, never against `import.meta.url` of another module, whose depth differs once bundled.
 */
export const packageRoot = new URL('../../', import.meta.url);

/** The file URL of `relative` (a `/`-separated path) under the package root. */
export function packageFile(relative: string): URL {
  return new URL(relative, packageRoot);
}
