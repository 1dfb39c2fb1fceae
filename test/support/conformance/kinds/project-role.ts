// ProjectRole: a custom role of a project, found by slug.
import type { KindConformance, ServiceObject } from '../types.ts';

const permissions = [{ subject: 'secrets', action: 'read', conditions: { environment: 'dev' } }];
const firstRule = (role: ServiceObject) =>
  (role['permissions'] as { action?: string[]; conditions?: Record<string, unknown> }[] | undefined)?.[0];

export const conformance: KindConformance = {
  kind: 'ProjectRole',
  shared: (ctx) => [
    {
      kind: 'Project',
      name: 'shop',
      spec: { name: 'Shop', slug: ctx.unique('roles'), deletionPolicy: 'Delete' },
    },
  ],
  spec: (_ctx, name) => ({ projectRef: { name: 'shop' }, slug: name, name: 'Conformance', permissions }),
  read: async (ctx, name) => ctx.h.service.roles.getBySlug(await ctx.idOf('Project', 'shop'), name),
  createExternal: async (ctx, name) => {
    const projectId = await ctx.idOf('Project', 'shop');
    const outside = { slug: name, name: 'Outside', permissions: [{ subject: 'secrets', action: ['read'] }] };
    return (await ctx.h.service.roles.create(projectId, outside)).id;
  },
  inLine: (role) =>
    role['name'] === 'Conformance' &&
    firstRule(role)?.action?.join() === 'read' &&
    firstRule(role)?.conditions?.['environment'] === 'dev',
  /** Renames the role and widens its permissions. */
  drift: async (ctx, _name, id) => {
    const projectId = await ctx.idOf('Project', 'shop');
    const widened = [{ subject: 'secrets', action: ['read', 'edit'] }];
    await ctx.h.service.roles.update(projectId, id, { name: 'Drifted', permissions: widened });
  },
  update: { spec: { name: 'Updated' }, applied: (role) => role['name'] === 'Updated' },
};
