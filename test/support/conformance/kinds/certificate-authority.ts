// CertificateAuthority: a private CA of a project. The service cannot list a project's CAs, so
// there is no natural key to find one by.
import type { KindConformance } from '../types.ts';

export const conformance: KindConformance = {
  kind: 'CertificateAuthority',
  shared: (ctx) => [
    {
      kind: 'Project',
      name: 'shop',
      spec: { name: 'Shop', slug: ctx.unique('pki'), deletionPolicy: 'Delete' },
    },
  ],
  spec: (_ctx, name) => ({
    projectRef: { name: 'shop' },
    type: 'root',
    commonName: name,
    organization: 'Shop',
    country: 'DE',
    validity: '8760h',
    keyAlgorithm: 'EC_prime256v1',
    requireTemplateForIssuance: true,
  }),
  read: (ctx, _name, id) => ctx.h.service.pki.getCa(id),
  createExternal: async (ctx, name) => {
    const outside = {
      projectSlug: ctx.unique('pki'),
      type: 'root' as const,
      commonName: name,
      organization: 'Shop',
      ou: '',
      country: 'DE',
      province: '',
      locality: '',
      keyAlgorithm: 'EC_prime256v1' as const,
    };
    return (await ctx.h.service.pki.createCa(outside)).id;
  },
  inLine: (ca) => ca['requireTemplateForIssuance'] === true,
  drift: async (ctx, _name, id) => {
    await ctx.h.service.pki.updateCa(id, { requireTemplateForIssuance: false });
  },
  update: { spec: { enabled: false }, applied: (ca) => ca['status'] === 'disabled' },
  notApplicable: {
    'already-exists':
      'the service has no endpoint to list a project’s CAs: a CA cannot be found by natural key, only named by id',
  },
};
