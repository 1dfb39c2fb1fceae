/**
 * The certificate-manager CA routes for internal CAs, `/api/v1/cert-manager/ca/internal`
 * (server/routes/v1/certificate-authority-routers/certificate-authority-endpoints.ts): create,
 * and get, update and delete by id. They answer the bare CA (no envelope) in the typed shape
 * `{id, name, projectId, status, disableDirectIssuance, type: "internal", configuration}` and
 * share the CA store of the deprecated `/api/v1/pki/ca` routes, so a CA made one way is visible
 * the other way. Permissions: `certificate-authorities` in the CA's project.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { badRequest } from '../domain/errors.ts';
import { CA_KEY_ALGORITHMS } from '../domain/pki.ts';
import { slugSchema } from '../domain/validation.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { requireProjectPermission } from '../domain/permissions.ts';
import type { CaRecord } from '../state/types.ts';
import { actorOf, findProject } from './common.ts';
import { addCa, findCaById } from './pki.ts';

const subjectPart = z.string().trim().default('');

const createSchema = z.object({
  name: slugSchema(),
  projectId: z.string().trim().min(1),
  status: z.enum(['active', 'disabled', 'pending-certificate']),
  disableDirectIssuance: z.boolean().default(false),
  configuration: z
    .object({
      type: z.enum(['root', 'intermediate']),
      friendlyName: z.string().trim().optional(),
      commonName: subjectPart,
      organization: subjectPart,
      ou: subjectPart,
      country: subjectPart,
      province: subjectPart,
      locality: subjectPart,
      notBefore: z.string().optional(),
      notAfter: z.string().optional(),
      maxPathLength: z.int().min(-1).default(-1),
      keyAlgorithm: z.enum(CA_KEY_ALGORITHMS),
    })
    .refine(
      (c) => [c.commonName, c.organization, c.ou, c.country, c.province, c.locality].some((x) => x !== ''),
      { message: 'At least one of the subject fields must be non-empty' },
    ),
});

const updateSchema = z.object({
  name: slugSchema().optional(),
  status: z.enum(['active', 'disabled']).optional(),
  disableDirectIssuance: z.boolean().optional(),
});

/** The typed (cert-manager) view of a CA. */
export function internalCaShape(ca: CaRecord): Record<string, unknown> {
  const m = ca.material;
  return {
    id: ca.id,
    name: ca.name,
    projectId: ca.projectId,
    status: ca.status,
    disableDirectIssuance: ca.disableDirectIssuance ?? false,
    type: 'internal',
    configuration: {
      type: m.type,
      friendlyName: ca.friendlyName,
      ...ca.subject,
      notBefore: m.notBefore,
      notAfter: m.notAfter,
      maxPathLength: m.maxPathLength,
      keyAlgorithm: m.keyAlgorithm,
      dn: m.dn,
      parentCaId: null,
      serialNumber: m.serialNumber,
      activeCaCertId: ca.activeCaCertId,
    },
  };
}

function nameTaken(app: DevApp, projectId: string, name: string, exceptId?: string): boolean {
  return Object.values(app.state.cas).some(
    (c) => c.projectId === projectId && c.name === name && c.id !== exceptId,
  );
}

async function createInternalCa(app: DevApp, ctx: RequestContext): Promise<unknown> {
  const body = createSchema.parse(ctx.body ?? {});
  const actor = actorOf(ctx);
  const project = findProject(app, actor, body.projectId);
  requireProjectPermission(app, actor, project.id, { action: 'create', subject: 'certificate-authorities' });
  if (nameTaken(app, project.id, body.name))
    throw badRequest(`Certificate authority with name '${body.name}' already exists`);
  const { commonName, organization, ou, country, province, locality, ...config } = body.configuration;
  const ca = await addCa(app, {
    ...config,
    projectId: project.id,
    name: body.name,
    subject: { commonName, organization, ou, country, province, locality },
    requireTemplateForIssuance: false,
  });
  // A root CA starts with the requested status; an intermediate waits for its certificate.
  if (ca.status === 'active' && body.status === 'disabled') ca.status = 'disabled';
  ca.disableDirectIssuance = body.disableDirectIssuance;
  return internalCaShape(ca);
}

function updateInternalCa(app: DevApp, ctx: RequestContext): unknown {
  const body = updateSchema.parse(ctx.body ?? {});
  const ca = findCaById(app, ctx, ctx.params.id ?? '', 'edit');
  if (body.name !== undefined && nameTaken(app, ca.projectId, body.name, ca.id))
    throw badRequest(`Certificate authority with name '${body.name}' already exists`);
  if (body.status !== undefined && ca.material.status === 'pending-certificate')
    throw badRequest('Cannot change the status of a CA without a certificate');
  if (body.name !== undefined) ca.name = body.name;
  if (body.status !== undefined) ca.status = body.status;
  if (body.disableDirectIssuance !== undefined) ca.disableDirectIssuance = body.disableDirectIssuance;
  ca.updatedAt = app.iso();
  app.changed();
  return internalCaShape(ca);
}

function deleteInternalCa(app: DevApp, ctx: RequestContext): unknown {
  const ca = findCaById(app, ctx, ctx.params.id ?? '', 'delete');
  delete app.state.cas[ca.id];
  app.changed();
  return internalCaShape(ca);
}

/** The cert-manager internal CA routes. */
export function certManagerCaRoutes(app: DevApp): RouteDef[] {
  const base = '/api/v1/cert-manager/ca/internal';
  const one = `${base}/:id`;
  return [
    { method: 'POST', path: base, bucket: 'write', handler: (ctx) => createInternalCa(app, ctx) },
    {
      method: 'GET',
      path: one,
      bucket: 'read',
      handler: (ctx) => internalCaShape(findCaById(app, ctx, ctx.params.id ?? '', 'read')),
    },
    { method: 'PATCH', path: one, bucket: 'write', handler: (ctx) => updateInternalCa(app, ctx) },
    { method: 'DELETE', path: one, bucket: 'write', handler: (ctx) => deleteInternalCa(app, ctx) },
  ];
}
