/**
 * What kube-apiserver was asked in a phase of the benchmark: `apiserver_request_total` from its
 * `/metrics`, summed by verb and resource (watches and their long-running requests excluded).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { Agent, request } from 'undici';

/** Request counts keyed `VERB resource[/subresource]`. */
export type RequestCounts = Map<string, number>;

const sample = /^apiserver_request_total\{([^}]*)\} (\d+(?:\.\d+)?(?:e\+\d+)?)$/;

function labels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of text.matchAll(/(\w+)="([^"]*)"/g)) out[match[1] ?? ''] = match[2] ?? '';
  return out;
}

/** Sums `apiserver_request_total` samples by verb and resource, without watches. */
export function parseRequestCounts(metricsText: string): RequestCounts {
  const counts: RequestCounts = new Map();
  for (const line of metricsText.split('\n')) {
    const match = sample.exec(line);
    if (!match) continue;
    const l = labels(match[1] ?? '');
    if (l.verb === 'WATCH' || l.verb === 'CONNECT' || !l.resource) continue;
    const key = `${l.verb} ${l.resource}${l.subresource ? `/${l.subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(match[2]));
  }
  return counts;
}

/** Reads the API server's request counters with the kubeconfig's (admin) client certificate. */
export async function apiServerRequests(kc: KubeConfig): Promise<RequestCounts> {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster?.caData || !user?.certData || !user.keyData) {
    throw new Error('the benchmark kubeconfig has no inline CA and client certificate');
  }
  const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
  const agent = new Agent({
    connect: { ca: decode(cluster.caData), cert: decode(user.certData), key: decode(user.keyData) },
  });
  try {
    const response = await request(`${cluster.server}/metrics`, { dispatcher: agent });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`GET /metrics answered ${response.statusCode}`);
    return parseRequestCounts(text);
  } finally {
    await agent.close();
  }
}

/** The requests made between two readings (keys with none left out). */
export function requestDelta(before: RequestCounts, after: RequestCounts): RequestCounts {
  const delta: RequestCounts = new Map();
  for (const [key, count] of after) {
    const made = count - (before.get(key) ?? 0);
    if (made > 0) delta.set(key, made);
  }
  return delta;
}

/** The sum of several phases' request counts. */
export function sumRequests(phases: readonly RequestCounts[]): RequestCounts {
  const sum: RequestCounts = new Map();
  for (const phase of phases) for (const [key, count] of phase) sum.set(key, (sum.get(key) ?? 0) + count);
  return sum;
}

/** "PATCH secretbatches 8000, ..." for the requests between two readings, most first. */
export function requestsText(before: RequestCounts, after: RequestCounts, top = 20): string {
  return [...after]
    .map(([key, count]) => [key, count - (before.get(key) ?? 0)] as const)
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, count]) => `${key} ${count}`)
    .join(', ');
}
