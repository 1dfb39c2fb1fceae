// SecretBatch: keys in one folder of a project environment. Its id is its scope
// (`<projectId>:<environment>:<path>`), and it owns keys one by one.
import type { ConformanceContext, KindConformance, ServiceObject } from '../types.ts';

const projectId = (ctx: ConformanceContext) => ctx.idOf('Project', 'shop');

export const conformance: KindConformance = {
  kind: 'SecretBatch',
  shared: (ctx) => [
    {
      kind: 'Project',
      name: 'shop',
      spec: {
        name: 'Shop',
        slug: ctx.unique('batches'),
        environments: [{ name: 'Development', slug: 'dev' }],
        deletionPolicy: 'Delete',
      },
    },
  ],
  spec: (_ctx, name) => ({
    projectRef: { name: 'shop' },
    environment: 'dev',
    secretPath: `/${name}`,
    secrets: [{ key: 'GREETING', value: 'hello' }],
  }),
  /** The folder's keys; a 404 once the batch's key is gone. */
  read: async (ctx, name): Promise<ServiceObject> => {
    const query = { workspaceId: await projectId(ctx), environment: 'dev', secretPath: `/${name}` };
    const { secrets } = await ctx.h.service.secrets.list(query);
    const keys = Object.fromEntries(secrets.map((s) => [s.secretKey, s.secretValue]));
    if (!('GREETING' in keys)) throw Object.assign(new Error(`no GREETING in /${name}`), { status: 404 });
    return keys;
  },
  createExternal: async (ctx, name) => {
    const workspaceId = await projectId(ctx);
    await ctx.h.service.folders.create({ projectId: workspaceId, environment: 'dev', path: '/', name });
    const where = { workspaceId, environment: 'dev', secretPath: `/${name}` };
    await ctx.h.service.secrets.create('GREETING', { ...where, secretValue: 'outside' });
    return `${workspaceId}:dev:/${name}`;
  },
  inLine: (keys) => keys['GREETING'] === 'hello',
  drift: async (ctx, name) => {
    const where = { workspaceId: await projectId(ctx), environment: 'dev', secretPath: `/${name}` };
    await ctx.h.service.secrets.update('GREETING', { ...where, secretValue: 'drifted' });
  },
  update: {
    spec: { secrets: [{ key: 'GREETING', value: 'updated' }] },
    applied: (keys) => keys['GREETING'] === 'updated',
  },
  notApplicable: {
    'already-exists':
      'its natural key is its id (project, environment, path) and it owns keys one by one: a folder with keys is adopted key by key, never refused',
  },
};
