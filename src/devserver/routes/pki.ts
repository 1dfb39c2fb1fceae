/**
 * Certificate authority routes, deprecated `/api/v1/pki/ca` (facts A17, A20, B8): real CAs
 * with a key pair of the requested algorithm and a self-signed X.509 certificate (root) or a
 * CSR (intermediate). `dn`, `serialNumber`, `notBefore` and `notAfter` come from the
 * certificate; the private key is never returned. Permissions: `certificate-authorities`.
 * The store is shared with the cert-manager routes (`cert-manager-ca.ts`).
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { badRequest, notFound } from '../domain/errors.ts';
import { CA_KEY_ALGORITHMS, certificateDer, createCa, renewRootCa } from '../domain/pki.ts';
import { HIJACKED, type RequestContext, type RouteDef } from '../http/types.ts';
import { requireProjectPermission } from '../domain/permissions.ts';
import type { CaRecord } from '../state/types.ts';
import { slugify } from './bootstrap.ts';
import { actorOf, findProjectBySlug } from './common.ts';

const subjectPart = z.string().trim();
const createSchema = z
  .object({
    projectSlug: z.string().trim().min(1),
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
    keyAlgorithm: z.enum(CA_KEY_ALGORITHMS).default('RSA_2048'),
    requireTemplateForIssuance: z.boolean().default(false),
  })
  .refine(
    (v) => [v.commonName, v.organization, v.ou, v.country, v.province, v.locality].some((x) => x !== ''),
    {
      message: 'At least one of the subject fields must be non-empty',
    },
  );

const updateSchema = z.object({
  status: z.enum(['active', 'disabled']).optional(),
  requireTemplateForIssuance: z.boolean().optional(),
});

function caShape(ca: CaRecord): Record<string, unknown> {
  const m = ca.material;
  return {
    id: ca.id,
    createdAt: ca.createdAt,
    updatedAt: ca.updatedAt,
    projectId: ca.projectId,
    status: ca.status,
    enableDirectIssuance: true,
    name: ca.name,
    parentCaId: null,
    type: m.type,
    friendlyName: ca.friendlyName,
    ...ca.subject,
    dn: m.dn,
    serialNumber: m.serialNumber,
    maxPathLength: m.maxPathLength,
    keyAlgorithm: m.keyAlgorithm,
    activeCaCertId: ca.activeCaCertId,
    requireTemplateForIssuance: ca.requireTemplateForIssuance,
    notBefore: m.notBefore,
    notAfter: m.notAfter,
  };
}

function recordCertificate(app: DevApp, ca: CaRecord): void {
  const m = ca.material;
  if (!m.certificate || !m.serialNumber) return;
  const id = app.newId();
  ca.certificates.push({
    id,
    certificate: m.certificate,
    certificateChain: m.certificateChain,
    serialNumber: m.serialNumber,
    version: ca.certificates.length + 1,
  });
  ca.activeCaCertId = id;
}

/** What a new CA is made from, whichever route creates it. */
export interface NewCa {
  projectId: string;
  name: string;
  friendlyName?: string | undefined;
  type: 'root' | 'intermediate';
  subject: CaRecord['subject'];
  keyAlgorithm: (typeof CA_KEY_ALGORITHMS)[number];
  notBefore?: string | undefined;
  notAfter?: string | undefined;
  maxPathLength: number;
  requireTemplateForIssuance: boolean;
}

/**
 * Generates the CA's key and certificate (root) or CSR (intermediate) and stores it: the one CA
 * store behind `/api/v1/pki/ca` and `/api/v1/cert-manager/ca/internal`.
 */
export async function addCa(app: DevApp, input: NewCa): Promise<CaRecord> {
  const material = await createCa({ ...input, ...input.subject }, new Date(app.now()));
  const now = app.iso();
  const ca: CaRecord = {
    id: app.newId(),
    projectId: input.projectId,
    status: material.status,
    name: input.name,
    friendlyName: input.friendlyName || material.dn,
    subject: input.subject,
    requireTemplateForIssuance: input.requireTemplateForIssuance,
    activeCaCertId: null,
    material,
    certificates: [],
    createdAt: now,
    updatedAt: now,
  };
  recordCertificate(app, ca);
  app.state.cas[ca.id] = ca;
  app.changed();
  return ca;
}

async function create(app: DevApp, ctx: RequestContext): Promise<unknown> {
  const body = createSchema.parse(ctx.body ?? {});
  const actor = actorOf(ctx);
  const project = findProjectBySlug(app, actor, body.projectSlug);
  requireProjectPermission(app, actor, project.id, { action: 'create', subject: 'certificate-authorities' });
  const { commonName, organization, ou, country, province, locality } = body;
  const ca = await addCa(app, {
    ...body,
    projectId: project.id,
    name: slugify(body.friendlyName || commonName || organization || 'ca').slice(0, 64) || 'ca',
    subject: { commonName, organization, ou, country, province, locality },
  });
  return { ca: caShape(ca) };
}

/** The CA `id` in the caller's organisation (404 otherwise), after checking `action` on it. */
export function findCaById(app: DevApp, ctx: RequestContext, id: string, action: string): CaRecord {
  const actor = actorOf(ctx);
  const ca = app.state.cas[id];
  if (!ca || app.state.projects[ca.projectId]?.orgId !== actor.orgId)
    throw notFound(`CA with ID '${id}' not found`);
  requireProjectPermission(app, actor, ca.projectId, { action, subject: 'certificate-authorities' });
  return ca;
}

function findCa(app: DevApp, ctx: RequestContext, action: string): CaRecord {
  return findCaById(app, ctx, ctx.params.caId ?? '', action);
}

function activeCertificate(ca: CaRecord): unknown {
  const m = ca.material;
  if (!m.certificate) throw badRequest('CA does not have a certificate installed');
  return { certificate: m.certificate, certificateChain: m.certificateChain, serialNumber: m.serialNumber };
}

function update(app: DevApp, ctx: RequestContext): unknown {
  const body = updateSchema.parse(ctx.body ?? {});
  const ca = findCa(app, ctx, 'edit');
  if (body.status !== undefined) {
    if (ca.material.status === 'pending-certificate')
      throw badRequest('Cannot change the status of a CA without a certificate');
    ca.status = body.status;
  }
  if (body.requireTemplateForIssuance !== undefined)
    ca.requireTemplateForIssuance = body.requireTemplateForIssuance;
  ca.updatedAt = app.iso();
  app.changed();
  return { ca: caShape(ca) };
}

async function renew(app: DevApp, ctx: RequestContext): Promise<unknown> {
  const body = z.object({ type: z.literal('existing'), notAfter: z.string().min(1) }).parse(ctx.body ?? {});
  const ca = findCa(app, ctx, 'edit');
  ca.material = await renewRootCa(ca.material, body.notAfter, new Date(app.now()));
  recordCertificate(app, ca);
  ca.updatedAt = app.iso();
  app.changed();
  return activeCertificate(ca);
}

function der(app: DevApp, ctx: RequestContext): typeof HIJACKED {
  const ca = app.state.cas[ctx.params.caId ?? ''];
  const cert = ca?.certificates.find((c) => c.id === ctx.params.caCertId);
  if (!cert) throw notFound(`CA certificate with ID '${ctx.params.caCertId ?? ''}' not found`);
  const body = certificateDer(cert.certificate);
  ctx.res.writeHead(200, { 'content-type': 'application/pkix-cert', 'content-length': String(body.length) });
  ctx.res.end(body);
  return HIJACKED;
}

/** The deprecated CA routes. */
export function pkiRoutes(app: DevApp): RouteDef[] {
  const one = '/api/v1/pki/ca/:caId';
  return [
    { method: 'POST', path: '/api/v1/pki/ca', bucket: 'write', handler: (ctx) => create(app, ctx) },
    {
      method: 'GET',
      path: one,
      bucket: 'read',
      handler: (ctx) => ({ ca: caShape(findCa(app, ctx, 'read')) }),
    },
    { method: 'PATCH', path: one, bucket: 'read', handler: (ctx) => update(app, ctx) },
    {
      method: 'DELETE',
      path: one,
      bucket: 'write',
      handler: (ctx) => {
        const ca = findCa(app, ctx, 'delete');
        delete app.state.cas[ca.id];
        app.changed();
        return { ca: caShape(ca) };
      },
    },
    {
      method: 'GET',
      path: `${one}/certificate`,
      bucket: 'read',
      handler: (ctx) => activeCertificate(findCa(app, ctx, 'read')),
    },
    {
      method: 'GET',
      path: `${one}/ca-certificates`,
      bucket: 'read',
      handler: (ctx) => findCa(app, ctx, 'read').certificates.map(({ id: _id, ...c }) => c),
    },
    {
      method: 'GET',
      path: `${one}/csr`,
      bucket: 'read',
      handler: (ctx) => {
        const ca = findCa(app, ctx, 'read');
        if (!ca.material.csr) throw badRequest('CA does not have a certificate signing request');
        return { csr: ca.material.csr };
      },
    },
    { method: 'POST', path: `${one}/renew`, bucket: 'write', handler: (ctx) => renew(app, ctx) },
    {
      method: 'GET',
      path: `${one}/certificates/:caCertId/der`,
      bucket: 'read',
      auth: false,
      handler: (ctx) => der(app, ctx),
    },
  ];
}
