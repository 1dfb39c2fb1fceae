// Certificate authorities on the deprecated `/api/v1/pki/ca` routes: create, get, update,
// delete, and the CA's own certificate (PEM).
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { optString, timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** A certificate authority; `dn`, `serialNumber`, `notBefore`, `notAfter` come from its certificate. */
export const caSchema = z.object({
  id: z.string().min(1),
  projectId: z.string().optional(),
  status: z.string(),
  type: z.string(),
  name: optString,
  friendlyName: optString,
  commonName: optString,
  organization: optString,
  ou: optString,
  country: optString,
  province: optString,
  locality: optString,
  dn: optString,
  serialNumber: optString,
  maxPathLength: z.number().int().nullish(),
  keyAlgorithm: z.string(),
  parentCaId: optString,
  activeCaCertId: optString,
  requireTemplateForIssuance: z.boolean().nullish(),
  enableDirectIssuance: z.boolean().nullish(),
  notBefore: optString,
  notAfter: optString,
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type CertificateAuthority = z.output<typeof caSchema>;

const keyAlgorithms = [
  'RSA_2048',
  'RSA_3072',
  'RSA_4096',
  'EC_prime256v1',
  'EC_secp384r1',
  'EC_secp521r1',
] as const;

const subject = {
  commonName: z.string(),
  organization: z.string(),
  ou: z.string(),
  country: z.string(),
  province: z.string(),
  locality: z.string(),
};
const createRequest = z
  .object({
    projectSlug: z.string().min(1),
    type: z.enum(['root', 'intermediate']),
    friendlyName: z.string().optional(),
    ...subject,
    notBefore: z.string().optional(),
    notAfter: z.string().optional(),
    maxPathLength: z.number().int().min(-1).optional(),
    keyAlgorithm: z.enum(keyAlgorithms).optional(),
    requireTemplateForIssuance: z.boolean().optional(),
  })
  .refine((v) => Object.keys(subject).some((k) => v[k as keyof typeof subject] !== ''), {
    message: 'at least one of commonName, organization, ou, country, province, locality must be set',
  })
  .refine((v) => [v.notBefore, v.notAfter].every((d) => d === undefined || !Number.isNaN(Date.parse(d))), {
    message: 'notBefore and notAfter must be dates',
  });
export type CreateCaInput = z.input<typeof createRequest>;

const updateRequest = z.object({
  status: z.enum(['active', 'disabled']).optional(),
  requireTemplateForIssuance: z.boolean().optional(),
});
export type UpdateCaInput = z.input<typeof updateRequest>;

const certificateResponse = z.object({
  certificate: z.string().min(1),
  certificateChain: z.string(),
  serialNumber: z.string(),
});
/** The CA certificate and chain as PEM. */
export type CaCertificate = z.output<typeof certificateResponse>;

/** Certificate authorities. */
export interface PkiApi {
  /** `POST /api/v1/pki/ca`: generates the key pair and, for a root CA, a self-signed certificate. */
  createCa(input: CreateCaInput, options?: CallOptions): Promise<CertificateAuthority>;
  getCa(caId: string, options?: CallOptions): Promise<CertificateAuthority>;
  updateCa(caId: string, input: UpdateCaInput, options?: CallOptions): Promise<CertificateAuthority>;
  deleteCa(caId: string, options?: CallOptions): Promise<CertificateAuthority>;
  /** `GET /api/v1/pki/ca/{caId}/certificate`. */
  getCaCertificate(caId: string, options?: CallOptions): Promise<CaCertificate>;
}

export function pkiApi(http: HttpClient): PkiApi {
  const one = (id: string, op: string): string => `/api/v1/pki/ca/${seg(id, 'caId', op)}`;
  const single = envelope('ca', caSchema);
  return {
    createCa: async (input, options) => {
      const op = 'pki.createCa';
      const body = validateRequest(createRequest, input, op);
      return http.call({ operation: op, method: 'POST', path: '/api/v1/pki/ca', body }, single, options);
    },
    getCa: async (caId, options) => {
      const op = 'pki.getCa';
      return http.call({ operation: op, method: 'GET', path: one(caId, op) }, single, options);
    },
    updateCa: async (caId, input, options) => {
      const op = 'pki.updateCa';
      const body = validateRequest(updateRequest, input, op);
      return http.call({ operation: op, method: 'PATCH', path: one(caId, op), body }, single, options);
    },
    deleteCa: async (caId, options) => {
      const op = 'pki.deleteCa';
      return http.call({ operation: op, method: 'DELETE', path: one(caId, op) }, single, options);
    },
    getCaCertificate: async (caId, options) => {
      const op = 'pki.getCaCertificate';
      return http.call(
        { operation: op, method: 'GET', path: `${one(caId, op)}/certificate` },
        certificateResponse,
        options,
      );
    },
  };
}
