// Identity: a machine identity of the organization, found by name.
import type { KindConformance } from '../types.ts';

export const conformance: KindConformance = {
  kind: 'Identity',
  spec: (ctx, name) => ({ name: ctx.unique(name), role: 'member' }),
  read: (ctx, _name, id) => ctx.h.service.identities.get(id),
  createExternal: async (ctx, name) =>
    (
      await ctx.h.service.identities.create({
        name: ctx.unique(name),
        organizationId: ctx.h.admin.organizationId,
      })
    ).id,
  inLine: (identity) => identity['role'] === 'member',
  drift: async (ctx, _name, id) => {
    await ctx.h.service.identities.update(id, { role: 'no-access' });
  },
  update: { spec: { role: 'admin' }, applied: (identity) => identity['role'] === 'admin' },
};
