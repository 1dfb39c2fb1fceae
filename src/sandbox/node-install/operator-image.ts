/**
 * The chart values that make the operator Deployment run a locally built image (see
 * `../image/image.ts`) that was imported into the node, without ever pulling it.
 */

/** `image.repository`, `image.tag` and `image.pullPolicy: Never` for `reference` (`name:tag`). */
export function imageValues(reference: string): { repository: string; tag: string; pullPolicy: string } {
  const colon = reference.lastIndexOf(':');
  if (colon <= reference.lastIndexOf('/')) throw new Error(`cannot use image "${reference}": no tag`);
  return { repository: reference.slice(0, colon), tag: reference.slice(colon + 1), pullPolicy: 'Never' };
}
