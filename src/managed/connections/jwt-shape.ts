/**
 * The shape of a JWT read from a file, checked without verifying its signature: three base64url
 * parts, a JSON header naming its `alg`, a JSON payload, and the audiences of its `aud` claim.
 *
 * Only what the operator decides on is read; the answers never carry any of the token's content,
 * so a caller may put them in a message as they are.
 */
import { z } from 'zod';

/** Three non-empty base64url parts separated by dots (compact JWS serialization). */
const compactJws = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const header = z.looseObject({ alg: z.string().min(1) });
const payload = z.looseObject({ aud: z.union([z.string(), z.array(z.string())]).optional() });

/** The parts of a JWT the operator reads. */
export interface JwtShape {
  /** The `aud` claim as a list; empty when the token names no audience. */
  readonly audiences: readonly string[];
}

/** A part decoded as JSON, or undefined when it is not base64url JSON. */
function decodePart(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The shape of `token`, or why it is not a JWT (a phrase such as `its header is not a JSON object
 * with alg`, naming no content of the token).
 */
export function jwtShape(token: string): JwtShape | { readonly problem: string } {
  if (!compactJws.test(token)) return { problem: 'it is not three base64url parts separated by dots' };
  const [headerPart = '', payloadPart = ''] = token.split('.');
  if (!header.safeParse(decodePart(headerPart)).success)
    return { problem: 'its header is not a JSON object naming its alg' };
  const claims = payload.safeParse(decodePart(payloadPart));
  if (!claims.success) return { problem: 'its payload is not a JSON object with an aud of strings' };
  const aud = claims.data.aud;
  return { audiences: aud === undefined ? [] : typeof aud === 'string' ? [aud] : aud };
}
