/**
 * Identity references: every `projectMemberships[].projectRef` resolves to a project id and every
 * `projectRoleRef` to the slug of a Ready ProjectRole of that same project. While the identity is
 * being deleted nothing is resolved (deleting the identity removes its memberships).
 */
import type { IdentitySpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject, ManagedStatus, ResolveContext } from '../../managed/external-client.ts';
import { resolveReference, type ReferencedObject } from '../../managed/references.ts';
import { TerminalError } from '../../runtime/errors.ts';
import type { OperatorServices } from '../kind-controller.ts';
import type { DesiredMembership, DesiredRole } from './memberships.ts';
import { identityReasons } from './reasons.ts';

/** What Identity references resolve to. */
export interface IdentityRefs {
  readonly memberships: readonly DesiredMembership[];
}

type MembershipSpec = NonNullable<IdentitySpec['projectMemberships']>[number];
type RoleSpec = MembershipSpec['roles'][number];

/** A ProjectRole as read from the cache. */
type ProjectRoleObject = ReferencedObject & {
  spec?: { slug?: unknown; projectRef?: { name?: unknown } };
  status?: ManagedStatus & { slug?: unknown };
};

interface RoleLookup {
  readonly services: OperatorServices;
  readonly obj: ManagedObject<IdentitySpec>;
  readonly project: string;
  readonly context: ResolveContext;
}

function temporaryOf(role: RoleSpec): Pick<DesiredRole, 'temporary'> {
  if (!role.temporary) return {};
  const { range, startTime } = role.temporary;
  return { temporary: { range, ...(startTime ? { startTime } : {}) } };
}

/** The slug of a Ready ProjectRole of the membership's project. */
async function projectRoleSlug(lookup: RoleLookup, ref: { name: string }): Promise<string> {
  const resolved = await resolveReference({
    reader: lookup.services.reader<ProjectRoleObject>('ProjectRole'),
    kind: 'ProjectRole',
    from: lookup.obj,
    ref,
    context: lookup.context,
  });
  const role = resolved.object;
  const owner = role?.spec?.projectRef?.name;
  if (owner !== lookup.project) {
    throw new TerminalError(
      identityReasons.names.InvalidReference,
      `cannot use ProjectRole ${ref.name} in the membership of Project ${lookup.project}: ` +
        `the role belongs to Project ${String(owner)}`,
    );
  }
  const slug = role?.status?.slug ?? role?.spec?.slug;
  return typeof slug === 'string' ? slug : '';
}

async function resolveRole(lookup: RoleLookup, role: RoleSpec): Promise<DesiredRole> {
  // The schema guarantees exactly one of role and projectRoleRef.
  if (!role.projectRoleRef) return { slug: role.role ?? '', known: false, ...temporaryOf(role) };
  return { slug: await projectRoleSlug(lookup, role.projectRoleRef), known: true, ...temporaryOf(role) };
}

/** Resolves the memberships (waiting on Projects and ProjectRoles that are not Ready). */
export async function resolveMemberships(
  services: OperatorServices,
  obj: ManagedObject<IdentitySpec>,
  context: ResolveContext,
): Promise<IdentityRefs> {
  if (context.deleting) return { memberships: [] };
  const memberships: DesiredMembership[] = [];
  for (const membership of obj.spec.projectMemberships ?? []) {
    const project = membership.projectRef.name;
    const resolved = await resolveReference({
      reader: services.reader('Project'),
      kind: 'Project',
      from: obj,
      ref: membership.projectRef,
      context,
    });
    const lookup: RoleLookup = { services, obj, project, context };
    const roles: DesiredRole[] = [];
    for (const role of membership.roles) roles.push(await resolveRole(lookup, role));
    memberships.push({ project, projectId: resolved.externalId, roles });
  }
  return { memberships };
}
