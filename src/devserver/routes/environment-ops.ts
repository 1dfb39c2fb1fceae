/**
 * Environment bookkeeping shared by project creation and the environment routes: insertion
 * with position shifting, moves, and removal, keeping the secret store in step (each
 * environment has a root folder).
 */
import type { DevApp } from '../app.ts';
import type { EnvironmentRecord } from '../state/types.ts';
import { environmentsOf } from './common.ts';

/**
 * Adds an environment. With `position`, environments at or after it shift by one; without it
 * the new one is appended.
 */
export function insertEnvironment(
  app: DevApp,
  projectId: string,
  input: { name: string; slug: string; position?: number | undefined },
): EnvironmentRecord {
  const existing = environmentsOf(app, projectId);
  const last = existing.at(-1)?.position ?? 0;
  const position = input.position ?? last + 1;
  if (input.position !== undefined) {
    for (const env of existing) if (env.position >= position) env.position++;
  }
  const now = app.iso();
  const env: EnvironmentRecord = {
    id: app.newId(),
    projectId,
    name: input.name,
    slug: input.slug,
    position,
    createdAt: now,
    updatedAt: now,
  };
  app.state.environments[env.id] = env;
  app.secrets.addEnvironment({ projectId, environment: env.slug }, env.id);
  app.changed();
  return env;
}

/**
 * Moves `env` to `position`, stored as given (project-env-service.ts `updateEnvironment`). Only
 * when another environment holds that position are those between the old and the new position
 * shifted by one toward the gap (project-env-dal.ts `updateAllPosition`); nothing is renumbered,
 * so a position past the end stays past the end.
 */
export function moveEnvironment(app: DevApp, env: EnvironmentRecord, position: number): void {
  const others = environmentsOf(app, env.projectId).filter((e) => e.id !== env.id);
  const from = env.position;
  if (others.some((e) => e.position === position)) {
    for (const e of others) {
      if (position > from && e.position > from && e.position <= position) e.position--;
      else if (position < from && e.position >= position && e.position < from) e.position++;
    }
  }
  env.position = position;
}

/** Renames an environment's slug, carrying its folders and secrets along. */
export function renameEnvironment(app: DevApp, env: EnvironmentRecord, slug: string): void {
  app.secrets.renameEnvironment({ projectId: env.projectId, environment: env.slug }, slug);
  env.slug = slug;
}

/** Removes an environment and its folders and secrets. */
export function removeEnvironment(app: DevApp, env: EnvironmentRecord): void {
  delete app.state.environments[env.id];
  app.secrets.removeEnvironment({ projectId: env.projectId, environment: env.slug });
  for (const integration of Object.values(app.state.integrations)) {
    if (integration.envId === env.id) delete app.state.integrations[integration.id];
  }
  app.changed();
}
