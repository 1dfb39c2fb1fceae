// Project: a service project, found by slug.
import type { KindConformance } from '../types.ts';

export const conformance: KindConformance = {
  kind: 'Project',
  spec: (ctx, name) => ({ name: 'Conformance', slug: ctx.unique(name), description: 'Conformance' }),
  read: (ctx, _name, id) => ctx.h.service.projects.get(id),
  createExternal: async (ctx, name) =>
    (await ctx.h.service.projects.create({ projectName: 'Outside', slug: ctx.unique(name) })).id,
  inLine: (project) => project['name'] === 'Conformance' && project['description'] === 'Conformance',
  drift: async (ctx, _name, id) => {
    await ctx.h.service.projects.update(id, { name: 'Drifted' });
  },
  update: { spec: { description: 'Updated' }, applied: (project) => project['description'] === 'Updated' },
};
