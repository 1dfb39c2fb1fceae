// IdentityAuth: a login method attached to an Identity (token auth here), found by its Identity.
import type { ConformanceContext, KindConformance } from '../types.ts';

const identityOf = (name: string) => `${name}-identity`;
const identityId = (ctx: ConformanceContext, name: string) => ctx.idOf('Identity', identityOf(name));

export const conformance: KindConformance = {
  kind: 'IdentityAuth',
  own: (ctx, name) => [
    { kind: 'Identity', name: identityOf(name), spec: { name: ctx.unique(identityOf(name)), role: 'admin' } },
  ],
  spec: (_ctx, name) => ({ identityRef: { name: identityOf(name) }, method: 'token', accessTokenTTL: 3600 }),
  read: async (ctx, name) => ctx.h.service.identityAuth.token.get(await identityId(ctx, name)),
  createExternal: async (ctx, name) =>
    (await ctx.h.service.identityAuth.token.attach(await identityId(ctx, name), { accessTokenTTL: 60 })).id,
  inLine: (config) => config['accessTokenTTL'] === 3600,
  drift: async (ctx, name) => {
    await ctx.h.service.identityAuth.token.update(await identityId(ctx, name), { accessTokenTTL: 60 });
  },
  update: {
    spec: { accessTokenNumUsesLimit: 1000 },
    applied: (config) => config['accessTokenNumUsesLimit'] === 1000,
  },
};
