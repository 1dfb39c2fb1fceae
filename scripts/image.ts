/**
 * Builds the operator's image from the Dockerfile on this machine, daemonless and without pulling
 * (src/sandbox/image/): local stand-ins for its base images (cached after the first run), then
 * `buildah bud` with its layer cache, written as an OCI archive for `ctr images import`. Prints
 * the image's name, digest, archive, size compressed and unpacked, and the build time.
 *
 *   npm run image -- [--reference coffer.local/coffer:dev] [--archive <path>] [--verbose]
 *
 * `--verbose` shows the output of buildah, mmdebstrap and npm as they run. Needs buildah and
 * mmdebstrap (Debian: `apt-get install buildah mmdebstrap`), and root.
 */
import { parseArgs } from 'node:util';
import { buildOperatorImage, defaultImageReference } from '../src/sandbox/image/image.ts';
import { parseCommandLine } from './command-line.ts';

const usage = `usage: npm run image -- [--reference <name>] [--archive <path>] [--verbose]

Builds the operator's image from the Dockerfile with buildah on local base images (no pull) and
writes it as an OCI archive for \`ctr images import\`.

  --reference <name>  the image's name (default ${defaultImageReference})
  --archive <path>    where to write the archive (default <cache>/image/<name>-<tag>.oci.tar)
  --verbose           show buildah's, mmdebstrap's and npm's output`;

const { values } = parseCommandLine(usage, () =>
  parseArgs({
    options: {
      reference: { type: 'string' },
      archive: { type: 'string' },
      verbose: { type: 'boolean', default: false },
    },
  }),
);

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

console.log('building the operator image (base images are built once and cached) ...');
const image = await buildOperatorImage({
  reference: values.reference,
  archive: values.archive,
  onOutput: values.verbose ? (line) => console.log(`  ${line}`) : undefined,
});
console.log(`image:      ${image.reference}`);
console.log(`digest:     ${image.digest}`);
console.log(`archive:    ${image.archive}`);
console.log(`size:       ${mib(image.compressedBytes)} compressed, ${mib(image.unpackedBytes)} unpacked`);
console.log(
  `build time: ${image.seconds.toFixed(1)} s (${image.bases.built ? 'cold: base images built' : 'warm: base images cached'})`,
);
console.log(`bases:      ${image.bases.node}, ${image.bases.runtime}`);
