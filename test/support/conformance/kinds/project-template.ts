// ProjectTemplate (cluster-scoped, on a ClusterConnection): a project template, found by name.
import type { KindConformance } from '../types.ts';

export const conformance: KindConformance = {
  kind: 'ProjectTemplate',
  spec: (ctx, name) => ({ name: ctx.unique(name), description: 'Conformance' }),
  read: (ctx, _name, id) => ctx.h.service.projectTemplates.get(id),
  createExternal: async (ctx, name) =>
    (await ctx.h.service.projectTemplates.create({ name: ctx.unique(name), type: 'secret-manager' })).id,
  inLine: (template) => template['description'] === 'Conformance',
  drift: async (ctx, _name, id) => {
    await ctx.h.service.projectTemplates.update(id, { description: 'Drifted' });
  },
  update: { spec: { description: 'Updated' }, applied: (template) => template['description'] === 'Updated' },
};
