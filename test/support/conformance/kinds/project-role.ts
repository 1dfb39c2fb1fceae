// ProjectRole: a custom role of a project, found by slug.
import type { KindConformance } from '../types.ts';

const permissions = [{ subject: 'secrets', action: 'read', conditions: { environment: 'dev' } }];

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
  inLine: (role) => role['name'] === 'Conformance',
  drift: async (ctx, _name, id) => {
    await ctx.h.service.roles.update(await ctx.idOf('Project', 'shop'), id, { name: 'Drifted' });
  },
  update: { spec: { name: 'Updated' }, applied: (role) => role['name'] === 'Updated' },
};
