/**
 * Project spec ↔ service project: the create request, the fields that drift, the environment
 * plan, and the status. Pure functions (no I/O), so every rule is a table test.
 *
 * Environment positions: the project GET lists environments in position order without the
 * numbers, so an environment's position is its 1-based index in that list. A spec position past
 * the end means "last" (the service renumbers 1..n on every move), which keeps a spec that asks
 * for position 9 of 3 from drifting forever.
 */
import type { ProjectSpec, ProjectStatus } from '../../api/v1alpha1/index.ts';
import type {
  CreateEnvironmentInput,
  CreateProjectInput,
  Project,
  UpdateEnvironmentInput,
  UpdateProjectInput,
} from '../../client/index.ts';

/** The adapter's part of Project status. */
export type ProjectStatusFields = Pick<ProjectStatus, 'slug' | 'organizationId' | 'environments'>;

/** An environment as the project GET lists it, with its inferred position. */
export interface ObservedEnvironment {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly position: number;
}

/** What to change so the project's environments match the spec. */
export interface EnvironmentPlan {
  readonly create: readonly CreateEnvironmentInput[];
  /** In ascending target position, so earlier moves are not undone by later ones. */
  readonly update: readonly {
    readonly id: string;
    readonly slug: string;
    readonly input: UpdateEnvironmentInput;
  }[];
  readonly remove: readonly { readonly id: string; readonly slug: string }[];
}

/** `POST /api/v2/workspace` body. `template` is the service template name, if any. */
export function createRequest(spec: ProjectSpec, template: string | undefined): CreateProjectInput {
  return {
    projectName: spec.name,
    slug: spec.slug,
    type: spec.type,
    hasDeleteProtection: spec.hasDeleteProtection,
    shouldCreateDefaultEnvs: spec.createDefaultEnvironments,
    ...(spec.description === undefined ? {} : { projectDescription: spec.description }),
    ...(template === undefined ? {} : { template }),
  };
}

/**
 * The PATCH body with only the fields that differ (`{}` when none). Optional spec fields that
 * are unset (description, autoCapitalization) are left as the service has them.
 */
export function updateRequest(spec: ProjectSpec, project: Project): UpdateProjectInput {
  const input: UpdateProjectInput = {};
  // The service trims names: compare trimmed so a padded name is no endless drift.
  if (project.name !== spec.name.trim()) input.name = spec.name;
  // The slug is the natural key: a slug changed in the service is changed back.
  if (project.slug !== spec.slug) input.slug = spec.slug;
  if (spec.description !== undefined && (project.description ?? '') !== spec.description)
    input.description = spec.description;
  if ((project.hasDeleteProtection ?? false) !== spec.hasDeleteProtection)
    input.hasDeleteProtection = spec.hasDeleteProtection;
  if (
    spec.autoCapitalization !== undefined &&
    (project.autoCapitalization ?? false) !== spec.autoCapitalization
  )
    input.autoCapitalization = spec.autoCapitalization;
  return input;
}

/** The project's environments with positions inferred from their order. */
export function observedEnvironments(project: Project): ObservedEnvironment[] {
  return (project.environments ?? []).map((env, index) => ({
    id: env.id,
    name: env.name,
    slug: env.slug,
    position: index + 1,
  }));
}

/** Where a spec position lands among `count` environments. */
function effectivePosition(position: number, count: number): number {
  return Math.min(position, Math.max(count, 1));
}

/**
 * Creates for listed environments that are missing, updates for changed names or positions, and
 * (with `pruneEnvironments`) removals of unlisted ones. Positions are compared as they will be
 * once the creates and removals are done.
 */
export function environmentPlan(
  spec: ProjectSpec,
  observed: readonly ObservedEnvironment[],
): EnvironmentPlan {
  const wanted = spec.environments ?? [];
  const bySlug = new Map(observed.map((env) => [env.slug, env]));
  const listed = new Set(wanted.map((env) => env.slug));
  const remove = spec.pruneEnvironments
    ? observed.filter((env) => !listed.has(env.slug)).map(({ id, slug }) => ({ id, slug }))
    : [];
  const create = wanted
    .filter((env) => !bySlug.has(env.slug))
    .sort((a, b) => (a.position ?? Infinity) - (b.position ?? Infinity))
    .map((env) => ({ name: env.name, slug: env.slug, ...(env.position ? { position: env.position } : {}) }));
  const finalCount = observed.length - remove.length + create.length;
  const update = wanted
    .flatMap((env) => {
      const current = bySlug.get(env.slug);
      if (!current) return [];
      const input: UpdateEnvironmentInput = {};
      if (current.name !== env.name.trim()) input.name = env.name;
      if (env.position !== undefined && current.position !== effectivePosition(env.position, finalCount))
        input.position = env.position;
      return Object.keys(input).length > 0 ? [{ id: current.id, slug: env.slug, input }] : [];
    })
    .sort((a, b) => (a.input.position ?? Infinity) - (b.input.position ?? Infinity));
  return { create, update, remove };
}

/** True when the plan changes nothing. */
export function isEmptyPlan(plan: EnvironmentPlan): boolean {
  return plan.create.length === 0 && plan.update.length === 0 && plan.remove.length === 0;
}

/** Names of what differs, for the `UpdatedExternal` event (no values). */
export function describeDrift(update: UpdateProjectInput, plan: EnvironmentPlan): string | undefined {
  const parts = [
    ...Object.keys(update),
    ...plan.create.map((env) => `environment ${env.slug} missing`),
    ...plan.update.map((env) => `environment ${env.slug} ${Object.keys(env.input).join('/')}`),
    ...plan.remove.map((env) => `environment ${env.slug} not listed`),
  ];
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** Status fields from the service project. */
export function statusOf(project: Project): ProjectStatusFields {
  return {
    slug: project.slug,
    ...(project.orgId ? { organizationId: project.orgId } : {}),
    environments: observedEnvironments(project).map(({ slug, name, id, position }) => ({
      slug,
      name,
      id,
      position,
    })),
  };
}
