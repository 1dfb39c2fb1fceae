/**
 * References of an AdditionalPrivilege: the Identity (its id) and the Project (its id and slug,
 * the slug for the v1 list). Outside deletion both must be Ready (else `ReferenceNotReady`).
 * While deleting, whatever can still be resolved is used: the delete itself needs only the
 * privilege's id, and when the identity or project is gone, so is the privilege. `scopeOf` turns
 * resolved references into the scope of the service lookups (`lookup.ts`).
 */
import type { AdditionalPrivilegeSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject, ResolveContext } from '../../managed/external-client.ts';
import { resolveReference, type ReferencedObject, type ResolvedReference } from '../../managed/references.ts';
import { WaitingError } from '../../runtime/errors.ts';
import type { OperatorServices } from '../kind-controller.ts';
import type { LookupScope } from './lookup.ts';

/** What references resolve to (the ids are only missing while deleting). */
export interface PrivilegeRefs {
  readonly identityId?: string;
  /** The Identity resource `identityRef` names, as read (absent while deleting after it went). */
  readonly identity?: ReferencedObject;
  readonly projectId?: string;
  readonly projectSlug?: string;
  /** The operator's waiting requeue, reused for `MembershipMissing`. */
  readonly waitRequeueMs: number;
}

/** A Project as read from the cache: its slug in status (as reconciled) or spec. */
type ProjectObject = ReferencedObject & { spec?: { slug?: unknown }; status?: { slug?: unknown } };

function slugOf(project: ProjectObject | undefined): string | undefined {
  const slug = project?.status?.slug ?? project?.spec?.slug;
  return typeof slug === 'string' ? slug : undefined;
}

async function tolerant<T>(
  context: ResolveContext,
  resolve: () => Promise<ResolvedReference<T>>,
): Promise<ResolvedReference<T> | undefined> {
  try {
    return await resolve();
  } catch (error) {
    if (context.deleting && error instanceof WaitingError) return undefined;
    throw error;
  }
}

/** Resolves `identityRef` and `projectRef` (see the module comment). */
export async function resolvePrivilegeRefs(
  services: OperatorServices,
  obj: ManagedObject<AdditionalPrivilegeSpec>,
  context: ResolveContext,
): Promise<PrivilegeRefs> {
  const identity = await tolerant(context, () =>
    resolveReference({
      reader: services.reader('Identity'),
      kind: 'Identity',
      from: obj,
      ref: obj.spec.identityRef,
      context,
    }),
  );
  const project = await tolerant(context, () =>
    resolveReference({
      reader: services.reader<ProjectObject>('Project'),
      kind: 'Project',
      from: obj,
      ref: obj.spec.projectRef,
      context,
    }),
  );
  const projectSlug = slugOf(project?.object);
  return {
    waitRequeueMs: context.waitRequeueMs,
    ...(identity ? { identityId: identity.externalId } : {}),
    ...(identity?.object ? { identity: identity.object } : {}),
    ...(project ? { projectId: project.externalId } : {}),
    ...(projectSlug ? { projectSlug } : {}),
  };
}

/**
 * The scope of the service lookups for `obj`. Throws when an id or the slug is missing, which
 * only happens while deleting (outside deletion both references are Ready).
 */
export function scopeOf(
  obj: ManagedObject<AdditionalPrivilegeSpec>,
  refs: PrivilegeRefs,
  signal: AbortSignal,
): LookupScope {
  const { identityId, projectId, projectSlug } = refs;
  if (!identityId || !projectId || !projectSlug)
    throw new Error('cannot address the privilege: its Identity or Project could not be resolved');
  return {
    owner: { identityId, projectId },
    projectSlug,
    names: { identity: obj.spec.identityRef.name, project: obj.spec.projectRef.name },
    waitRequeueMs: refs.waitRequeueMs,
    signal,
  };
}
