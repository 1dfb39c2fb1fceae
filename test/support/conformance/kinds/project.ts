// Project: a service project with its environments, found by slug.
import type { KindConformance, ServiceObject } from '../types.ts';

interface Environment {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
}
const environments = (project: ServiceObject) => (project['environments'] ?? []) as Environment[];

export const conformance: KindConformance = {
  kind: 'Project',
  spec: (ctx, name) => ({
    name: 'Conformance',
    slug: ctx.unique(name),
    description: 'Conformance',
    environments: [{ name: 'Development', slug: 'dev' }],
  }),
  read: (ctx, _name, id) => ctx.h.service.projects.get(id),
  createExternal: async (ctx, name) => {
    const outside = { projectName: 'Outside', slug: ctx.unique(name), shouldCreateDefaultEnvs: false };
    return (await ctx.h.service.projects.create(outside)).id;
  },
  inLine: (project) =>
    project['name'] === 'Conformance' &&
    project['description'] === 'Conformance' &&
    project['hasDeleteProtection'] !== true &&
    environments(project)
      .map((e) => `${e.slug}=${e.name}`)
      .join() === 'dev=Development',
  /** Renames the project and its environment and turns on deletion protection. */
  drift: async (ctx, _name, id) => {
    const dev = environments(await ctx.h.service.projects.get(id)).find((e) => e.slug === 'dev');
    await ctx.h.service.projects.update(id, { name: 'Drifted', hasDeleteProtection: true });
    await ctx.h.service.environments.update(id, dev?.id ?? '', { name: 'Dev (drifted)' });
  },
  update: { spec: { description: 'Updated' }, applied: (project) => project['description'] === 'Updated' },
};
