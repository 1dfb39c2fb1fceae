// AdditionalPrivilege: extra permissions of an Identity in a project, found by slug.
import type { KindConformance } from '../types.ts';

const readDev = { subject: 'secrets', action: 'read', conditions: { environment: 'dev' } };

export const conformance: KindConformance = {
  kind: 'AdditionalPrivilege',
  shared: (ctx) => [
    {
      kind: 'Project',
      name: 'shop',
      spec: { name: 'Shop', slug: ctx.unique('privileges'), deletionPolicy: 'Delete' },
    },
    {
      kind: 'Identity',
      name: 'bot',
      spec: {
        name: ctx.unique('bot'),
        projectMemberships: [{ projectRef: { name: 'shop' }, roles: [{ role: 'viewer' }] }],
      },
    },
  ],
  spec: (_ctx, name) => ({
    identityRef: { name: 'bot' },
    projectRef: { name: 'shop' },
    slug: name,
    permissions: [readDev],
  }),
  read: (ctx, _name, id) => ctx.h.service.privileges.get(id),
  createExternal: async (ctx, name) => {
    const [identityId, projectId] = await Promise.all([
      ctx.idOf('Identity', 'bot'),
      ctx.idOf('Project', 'shop'),
    ]);
    const outside = {
      identityId,
      projectId,
      slug: name,
      permissions: [{ subject: 'secrets', action: ['read'] }],
      type: { isTemporary: false as const },
    };
    return (await ctx.h.service.privileges.create(outside)).id;
  },
  inLine: (privilege) => firstRule(privilege)?.conditions?.['environment'] === 'dev',
  drift: async (ctx, name, id) => {
    const permissions = [{ subject: 'secrets', action: ['delete'] }];
    await ctx.h.service.privileges.update(id, { slug: name, permissions, type: { isTemporary: false } });
  },
  update: {
    spec: { permissions: [{ ...readDev, action: ['read', 'edit'] }] },
    applied: (privilege) => firstRule(privilege)?.action?.length === 2,
  },
};

function firstRule(privilege: Record<string, unknown>) {
  const rules = privilege['permissions'] as
    { action?: string[]; conditions?: Record<string, unknown> }[] | undefined;
  return rules?.[0];
}
