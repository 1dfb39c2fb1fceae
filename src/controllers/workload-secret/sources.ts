/**
 * Reading the sources of a WorkloadSecret with the resource's own connection: the project (a
 * Project resource of the namespace, which must be Ready; or an id; or a slug), then one list
 * of the folder (`GET /api/v3/secrets/raw`, recursive and with imports and references expanded as
 * the spec says). A project, environment or folder the service does not know is `SourceNotFound`
 * (waiting: nothing is delivered): the service answers 404 for each (an empty list from releases
 * that answer a missing folder with 200 is checked against the folder's parent, `requireFolder`).
 * A caller that is no member of the project is refused by the service with 403, which surfaces as
 * `Forbidden`. A value the identity may not read (masked by the service) is refused rather than
 * delivered masked.
 */
import type { WorkloadSecretSource } from '../../api/v1alpha1/index.ts';
import {
  ForbiddenError,
  isNotFound,
  type Secret,
  type SecretList,
  type ServiceClient,
} from '../../client/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { resolveReference, type ReferencedObject } from '../../managed/references.ts';
import type { OperatorServices } from '../../managed/kind-services.ts';
import { TerminalError, WaitingError } from '../../runtime/errors.ts';
import { managedReasons } from '../../managed/reasons.ts';
import { keyFilter } from './globs.ts';
import type { SourcePairs } from './merge.ts';
import { workloadSecretReasons } from './reasons.ts';

/** Requeue while a source or its Project is missing. */
export const SOURCE_WAIT_MS = 15_000;

/** What one source contributed, for `status.sources` (no values). */
export interface SourceReport {
  readonly project: string;
  readonly environment: string;
  readonly secretPath: string;
  readonly count: number;
  readonly latestVersion?: number;
  readonly latestUpdate?: string;
}

export interface SourceRead {
  readonly pairs: SourcePairs;
  readonly report: SourceReport;
}

export interface SourceContext {
  readonly client: ServiceClient;
  readonly services: Pick<OperatorServices, 'reader' | 'log'>;
  readonly signal: AbortSignal;
}

type ProjectAddress = { readonly workspaceId: string } | { readonly projectSlug: string };

/** How `source` names its project; a Project resource must be Ready with an id. */
export async function projectAddress(
  obj: ManagedObject<unknown>,
  source: WorkloadSecretSource,
  ctx: SourceContext,
): Promise<ProjectAddress> {
  if (source.projectId) return { workspaceId: source.projectId };
  if (source.projectSlug) return { projectSlug: source.projectSlug };
  const ref = source.projectRef;
  if (!ref) throw new TerminalError(managedReasons.names.InvalidSpec, 'a source names no project');
  const context = {
    deleting: false,
    waitRequeueMs: SOURCE_WAIT_MS,
    signal: ctx.signal,
    log: ctx.services.log,
  };
  const reader = ctx.services.reader<ReferencedObject>('Project');
  const resolved = await resolveReference({ reader, kind: 'Project', from: obj, ref, context });
  return { workspaceId: resolved.externalId };
}

function describe(address: ProjectAddress, source: WorkloadSecretSource): string {
  const project =
    'workspaceId' in address ? `project ${address.workspaceId}` : `project ${address.projectSlug}`;
  return `${project}, environment ${source.environment}, path ${source.secretPath}`;
}

/** Path depth for ordering a recursive read: parents first, so the deepest folder wins. */
function depth(path: string | undefined): number {
  return (path ?? '/').split('/').filter(Boolean).length;
}

function byPrecedence(a: Secret, b: Secret): number {
  const d = depth(a.secretPath) - depth(b.secretPath);
  if (d !== 0) return d;
  const pa = a.secretPath ?? '/';
  const pb = b.secretPath ?? '/';
  return pa < pb ? -1 : pa > pb ? 1 : 0;
}

/**
 * The secrets of a list in precedence order: imported ones first (in the order the service lists
 * the imports, a later import winning), then the folder's own, parents before subfolders.
 */
export function inPrecedenceOrder(list: SecretList): Secret[] {
  const imported = (list.imports ?? []).flatMap((i) => i.secrets);
  return [...imported, ...[...list.secrets].sort(byPrecedence)];
}

function refuseMasked(secrets: readonly Secret[], where: string): void {
  const masked = secrets.find((s) => s.secretValueHidden === true);
  if (masked)
    throw new TerminalError(
      managedReasons.names.Forbidden,
      `the connection's identity may not read the value of ${JSON.stringify(masked.secretKey)} (${where}); ` +
        'grant it readValue on the folder, or exclude the key',
    );
}

function summary(
  secrets: readonly Secret[],
  address: ProjectAddress,
  source: WorkloadSecretSource,
): SourceReport {
  let latestVersion = 0;
  let latestUpdate: string | undefined;
  for (const s of secrets) {
    latestVersion = Math.max(latestVersion, s.version);
    const at = s.updatedAt === undefined ? undefined : new Date(s.updatedAt).toISOString();
    if (at && (!latestUpdate || at > latestUpdate)) latestUpdate = at;
  }
  const project =
    secrets.find((s) => s.workspace)?.workspace ??
    ('workspaceId' in address ? address.workspaceId : address.projectSlug);
  return {
    project,
    environment: source.environment,
    secretPath: source.secretPath,
    count: new Set(secrets.map((s) => s.secretKey)).size,
    ...(secrets.length > 0 ? { latestVersion } : {}),
    ...(latestUpdate ? { latestUpdate } : {}),
  };
}

function sourceNotFound(where: string, why: string): WaitingError {
  return new WaitingError(
    workloadSecretReasons.names.SourceNotFound,
    `source not found (${where}): ${why}; nothing is delivered until it exists`,
    SOURCE_WAIT_MS,
  );
}

/** The project's id: as named, or looked up by slug (`GET /api/v2/workspace/{slug}`). */
async function projectIdOf(address: ProjectAddress, ctx: SourceContext): Promise<string> {
  if ('workspaceId' in address) return address.workspaceId;
  return (await ctx.client.projects.getBySlug(address.projectSlug, { signal: ctx.signal })).id;
}

/**
 * An empty list may mean a missing source. Current releases of the service answer a list of a
 * folder or environment that does not exist with 404 `SecretPathNotFound` (handled by the
 * caller); earlier ones with an empty 200 (docs/service-facts.md). So after an empty list the
 * folder's parent is listed once (`GET /api/v2/folders`, open to every member of the project):
 * an unknown environment answers 404, a missing folder is absent from its parent's folders. For
 * `/` the root's folders are listed, which only asks whether the environment exists. A project
 * named by slug is looked up first (one more call). A 403 gives the benefit of the doubt: the list
 * itself was allowed.
 */
async function requireFolder(
  address: ProjectAddress,
  source: WorkloadSecretSource,
  ctx: SourceContext,
  where: string,
): Promise<void> {
  const parts = source.secretPath.split('/').filter(Boolean);
  const name = parts.pop();
  const query = { environment: source.environment, path: `/${parts.join('/')}` };
  try {
    const projectId = await projectIdOf(address, ctx);
    const folders = await ctx.client.folders.list({ projectId, ...query }, { signal: ctx.signal });
    if (name !== undefined && !folders.some((f) => f.name === name))
      throw sourceNotFound(where, 'the folder does not exist');
  } catch (error) {
    if (isNotFound(error)) throw sourceNotFound(where, (error as Error).message);
    if (error instanceof ForbiddenError) return;
    throw error;
  }
}

/** Reads one source (see the module comment). */
export async function readSource(
  obj: ManagedObject<unknown>,
  source: WorkloadSecretSource,
  ctx: SourceContext,
): Promise<SourceRead> {
  const address = await projectAddress(obj, source, ctx);
  const where = describe(address, source);
  let list: SecretList;
  try {
    list = await ctx.client.secrets.list(
      {
        ...address,
        environment: source.environment,
        secretPath: source.secretPath,
        recursive: source.recursive,
        expandSecretReferences: source.expandReferences,
        include_imports: source.expandReferences,
      },
      { signal: ctx.signal },
    );
  } catch (error) {
    if (!isNotFound(error)) throw error;
    throw sourceNotFound(where, (error as Error).message);
  }
  if (list.secrets.length === 0 && (list.imports ?? []).length === 0)
    await requireFolder(address, source, ctx, where);
  const wanted = keyFilter(source.include, source.exclude);
  const secrets = inPrecedenceOrder(list).filter((s) => wanted(s.secretKey));
  refuseMasked(secrets, where);
  return {
    pairs: secrets.map((s) => [s.secretKey, s.secretValue] as const),
    report: summary(secrets, address, source),
  };
}
