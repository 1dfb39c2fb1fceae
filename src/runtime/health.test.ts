import { afterEach, describe, expect, it } from 'vitest';
import { HealthProbes, serveHealthProbes } from './health.ts';
import type { RunningServer } from './http-server.ts';
import { OperatorMetrics, serveMetrics } from './metrics.ts';

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function get(port: number, path: string, method = 'GET') {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
  return { status: response.status, body: await response.text(), type: response.headers.get('content-type') };
}

describe('health probes', () => {
  it('reports ready only when every readiness check passes, naming the failing ones', async () => {
    const probes = new HealthProbes();
    let synced = false;
    probes.addHealthCheck('ping', () => true);
    probes.addReadyCheck('informer:secrets', () => synced);
    probes.addReadyCheck('informer:projects', () => true);
    probes.addReadyCheck('throws', () => {
      if (!synced) throw new Error('boom');
      return true;
    });
    const server = await serveHealthProbes(probes, { host: '127.0.0.1', port: 0 });
    servers.push(server);
    expect(await get(server.port, '/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    expect(await get(server.port, '/readyz?verbose')).toMatchObject({
      status: 500,
      body: '[-]informer:secrets failed\n[-]throws failed\n',
    });
    synced = true;
    expect(await get(server.port, '/readyz')).toMatchObject({ status: 200, body: 'ok\n' });
    expect((await get(server.port, '/other')).status).toBe(404);
    expect((await get(server.port, '/healthz', 'POST')).status).toBe(405);
  });
});

describe('metrics endpoint', () => {
  it('serves the registry of this manager only, in Prometheus text format', async () => {
    const metrics = new OperatorMetrics({ processMetrics: false });
    const other = new OperatorMetrics({ processMetrics: false });
    metrics.observeReconcile('project', 'Project', 'success', 40);
    metrics.queueHooks('project').depth?.(3);
    metrics.informerRestarted('secrets');
    metrics.serviceRequest({ operation: 'getProject', status: 404, durationMs: 5 });
    metrics.setLeader('coffer-operator-leader', true);
    other.informerRestarted('must-not-appear');
    const server = await serveMetrics(metrics, { host: '127.0.0.1', port: 0 });
    servers.push(server);
    const { status, body, type } = await get(server.port, '/metrics');
    expect(status).toBe(200);
    expect(type).toContain('text/plain');
    for (const line of [
      'coffer_reconcile_total{controller="project",kind="Project",result="success"} 1',
      'coffer_reconcile_duration_seconds_sum{controller="project",kind="Project"} 0.04',
      'coffer_workqueue_depth{name="project"} 3',
      'coffer_informer_restarts_total{informer="secrets"} 1',
      'coffer_service_requests_total{operation="getProject",status="404"} 1',
      'coffer_leader_election_status{name="coffer-operator-leader"} 1',
    ]) {
      expect(body).toContain(line);
    }
    expect(body).not.toContain('must-not-appear');
    expect(body).not.toContain('process_cpu');
  });
});
