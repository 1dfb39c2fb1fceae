/**
 * The devserver's calls to services a login method points at (JWKS URLs, OIDC discovery, the
 * Kubernetes TokenReview API) over HTTPS with the configured CA. With a CA the peer is verified
 * against it; without one, JWKS and discovery fetches skip verification as the service does
 * (`rejectUnauthorized: !!ca`), while the TokenReview verifies against the system roots.
 * Bounded by a timeout and a response size; errors never carry request headers or bodies.
 */
import { Agent, fetch } from 'undici';

const TIMEOUT_MS = 10_000;
const MAX_BYTES = 256 * 1024;

/** Options of {@link fetchJson}. */
export interface OutboundRequest {
  method?: 'GET' | 'POST' | 'DELETE';
  /** PEM bundle to trust; empty for none. */
  ca: string;
  /** Whether a missing CA still verifies against the system roots. */
  verifyWithoutCa: boolean;
  headers?: Record<string, string>;
  body?: unknown;
}

/** `{status, body}` of a JSON call; the body is `undefined` when it is not JSON. */
export async function fetchJson(
  url: string,
  request: OutboundRequest,
): Promise<{ status: number; body: unknown }> {
  const dispatcher = new Agent({
    connect: request.ca ? { ca: request.ca } : { rejectUnauthorized: request.verifyWithoutCa },
  });
  try {
    const res = await fetch(url, {
      method: request.method ?? 'GET',
      dispatcher,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: {
        accept: 'application/json, application/jwk-set+json',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
    const text = await res.text();
    if (text.length > MAX_BYTES) throw new Error('response too large');
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = undefined;
    }
    return { status: res.status, body };
  } finally {
    void dispatcher.close();
  }
}

/** A short description of a failed fetch, without headers or bodies. */
export function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}
