/**
 * The operator image the node runs: a docker/OCI archive containerd imports, and the reference
 * the chart's `image.repository`/`image.tag` name.
 */
import { buildStandInOperatorImage } from './stand-in-image.ts';

/** An image archive and the reference its manifest tags it with. */
export interface OperatorImage {
  readonly archive: string;
  readonly reference: string;
}

/** The reference of the locally built operator image. */
export const localOperatorReference = 'coffer.local/coffer:dev';

/** The chart values that make the Deployment run `reference` without ever pulling it. */
export function imageValues(reference: string): { repository: string; tag: string; pullPolicy: string } {
  const colon = reference.lastIndexOf(':');
  if (colon <= reference.lastIndexOf('/')) throw new Error(`cannot use image "${reference}": no tag`);
  return { repository: reference.slice(0, colon), tag: reference.slice(colon + 1), pullPolicy: 'Never' };
}

/** Builds the operator image into `dir` and returns its archive. */
export function buildOperatorImage(dir: string): Promise<OperatorImage> {
  return Promise.resolve(buildStandInOperatorImage(dir, localOperatorReference));
}
