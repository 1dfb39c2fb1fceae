// Integration: a sync of a project's secrets to another platform. The service no longer creates
// native integrations, so every case adopts one seeded through the devserver's admin route.
import { seedIntegration } from '../../../../src/controllers/integration/testing.ts';
import type { ConformanceContext, KindConformance } from '../types.ts';

const projectId = (ctx: ConformanceContext) => ctx.idOf('Project', 'shop');

export const conformance: KindConformance = {
  kind: 'Integration',
  createdOutside:
    'the service refuses to create native integrations (403): a resource adopts an existing one',
  shared: (ctx) => [
    {
      kind: 'Project',
      name: 'shop',
      spec: {
        name: 'Shop',
        slug: ctx.unique('integrations'),
        environments: [{ name: 'Production', slug: 'prod' }],
        deletionPolicy: 'Delete',
      },
    },
  ],
  prepare: (ctx) =>
    ctx.h.createSecret(
      'aws',
      { id: 'AKIA-CONFORMANCE', secret: 'conformance-only' },
      { namespace: ctx.namespace },
    ),
  spec: (_ctx, name) => ({
    projectRef: { name: 'shop' },
    integration: 'aws-secret-manager',
    environment: 'prod',
    app: name,
    region: 'eu-west-1',
    auth: {
      accessIdSecretRef: { name: 'aws', key: 'id' },
      accessTokenSecretRef: { name: 'aws', key: 'secret' },
    },
  }),
  read: (ctx, _name, id) => ctx.h.service.integrations.get(id),
  createExternal: async (ctx, name) => {
    const workspaceId = await projectId(ctx);
    const auth = await ctx.h.service.integrations.auth.createWithAccessToken({
      workspaceId,
      integration: 'aws-secret-manager',
      accessId: 'AKIA-SEEDED',
      accessToken: 'seeded-only',
    });
    const seeded = { projectId: workspaceId, integrationAuthId: auth.id, environment: 'prod', app: name };
    return (await seedIntegration(ctx.h.url, seeded)).id;
  },
  inLine: (integration) => integration['region'] === 'eu-west-1' && integration['isActive'] === true,
  drift: async (ctx, _name, id) => {
    await ctx.h.service.integrations.update(id, { isActive: false });
  },
  update: { spec: { region: 'us-east-1' }, applied: (integration) => integration['region'] === 'us-east-1' },
  notApplicable: {
    create: 'the service refuses to create native integrations (403); integration.test.ts holds the refusal',
  },
};
