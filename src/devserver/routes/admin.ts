/**
 * Health routes (always on) and the `/__devserver/*` admin routes (only with `enableAdmin`):
 *
 * - `GET /__devserver/stats`: request and write counters (see `StatsSnapshot`);
 * - `POST /__devserver/stats/reset`: zero the counters;
 * - `GET /__devserver/faults`, `PUT /__devserver/faults` `{latencyMs?, errorRatio?, dropRatio?}`:
 *   read or change fault injection (omitted fields keep their value);
 * - `POST /__devserver/integrations`: seed a native integration (the real create endpoint
 *   always answers 403 now, so tests of integration get/update/delete need this);
 * - `POST /__devserver/persist`: write the data file now.
 *
 * Admin routes need no token and are exempt from faults and rate limits.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { faultOptionsSchema, type FaultInjector } from '../http/faults.ts';
import type { RouteDef } from '../http/types.ts';
import type { DevServerStats } from '../http/stats.ts';
import { seedIntegration } from './integrations.ts';

export interface AdminDeps {
  app: DevApp;
  stats: DevServerStats;
  faults: FaultInjector;
  flush: () => Promise<void>;
}

/** `GET /` and `GET /api/status`: 200 when the server is ready. */
export function healthRoutes(): RouteDef[] {
  const health = () => ({ date: new Date().toISOString(), message: 'Ok' });
  return [
    { method: 'GET', path: '/', exempt: true, auth: false, handler: health },
    { method: 'GET', path: '/api/status', exempt: true, auth: false, handler: health },
  ];
}

const seedSchema = z.object({
  projectId: z.string().min(1),
  integrationAuthId: z.string().min(1),
  environment: z.string().min(1),
  secretPath: z.string().default('/'),
  app: z.string().optional(),
  appId: z.string().optional(),
  isActive: z.boolean().default(true),
});

/** The admin routes; only registered when admin is enabled. */
export function adminRoutes(deps: AdminDeps): RouteDef[] {
  const admin = { exempt: true, auth: false, write: false, internal: true } as const;
  return [
    { ...admin, method: 'GET', path: '/__devserver/stats', handler: () => deps.stats.snapshot() },
    {
      ...admin,
      method: 'POST',
      path: '/__devserver/stats/reset',
      handler: () => {
        deps.stats.reset();
        return { ok: true };
      },
    },
    { ...admin, method: 'GET', path: '/__devserver/faults', handler: () => deps.faults.current },
    {
      ...admin,
      method: 'PUT',
      path: '/__devserver/faults',
      handler: (ctx) => {
        deps.faults.update(faultOptionsSchema.parse(ctx.body ?? {}));
        return deps.faults.current;
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/__devserver/integrations',
      handler: (ctx) => ({ integration: seedIntegration(deps.app, seedSchema.parse(ctx.body ?? {})) }),
    },
    {
      ...admin,
      method: 'POST',
      path: '/__devserver/persist',
      handler: async () => {
        await deps.flush();
        return { ok: true };
      },
    },
  ];
}
