// Invalid times and durations (see src/api/v1alpha1/time-bounds.ts), for the shared table of
// crds-cases.ts: bounds the CRD enforces, so no computed time can exceed what can be stored.
import { sampleSpec, type BadObjectCase } from './crds-cases.ts';
import { tokenAuthVariant } from './identity-auth-token-spec.ts';

type Spec = Record<string, unknown>;

function variant(kind: string, edit: (spec: Spec) => void): Spec {
  const spec = sampleSpec(kind);
  edit(spec);
  return spec;
}

/** The cases; a function, so it runs after crds-cases.ts (which imports this file) is initialised. */
export function timeBoundCases(): BadObjectCase[] {
  return [
    {
      reason: 'AdditionalPrivilege with a temporary range over 100 years',
      kind: 'AdditionalPrivilege',
      spec: variant('AdditionalPrivilege', (s) => {
        s['temporary'] = { range: '36526d' };
      }),
      apiMessage: 'range must be at most 100 years',
      zodMessage: 'range must be at most 100 years',
    },
    {
      reason: 'AdditionalPrivilege with a temporary range of 15 digits',
      kind: 'AdditionalPrivilege',
      spec: variant('AdditionalPrivilege', (s) => {
        s['temporary'] = { range: '999999999999999y' };
      }),
      apiMessage: 'spec.temporary.range: Too long: may not be more than 15 bytes',
    },
    {
      reason: 'AdditionalPrivilege starting in a five-digit year',
      kind: 'AdditionalPrivilege',
      spec: variant('AdditionalPrivilege', (s) => {
        s['temporary'] = { range: '1h', startTime: '10000-01-01T00:00:00Z' };
      }),
      apiMessage: 'spec.temporary.startTime in body must be of type date-time',
    },
    {
      reason: 'AdditionalPrivilege starting before 1970',
      kind: 'AdditionalPrivilege',
      spec: variant('AdditionalPrivilege', (s) => {
        s['temporary'] = { range: '1h', startTime: '0001-01-01T00:00:00Z' };
      }),
      apiMessage: 'startTime must not be before 1970-01-01T00:00:00Z',
      zodMessage: 'startTime must not be before 1970-01-01T00:00:00Z',
    },
    {
      reason: 'Project with a poll interval over a week',
      kind: 'Project',
      spec: variant('Project', (s) => {
        s['pollInterval'] = '169h';
      }),
      apiMessage: 'pollInterval must be at most 168h',
      zodMessage: 'pollInterval must be at most 168h',
    },
    {
      reason: 'IdentityAuth rotating less often than every ten years',
      kind: 'IdentityAuth',
      spec: tokenAuthVariant(sampleSpec('IdentityAuth'), (s) => {
        (s['credentials'] as Spec)['rotateEvery'] = '87601h';
      }),
      apiMessage: 'credentials.rotateEvery must be at most 87600h',
      zodMessage: 'credentials.rotateEvery must be at most 87600h',
    },
    {
      reason: 'CertificateAuthority valid for more than 100 years',
      kind: 'CertificateAuthority',
      spec: variant('CertificateAuthority', (s) => {
        s['validity'] = '876001h';
      }),
      apiMessage: 'validity must be at most 876000h',
      zodMessage: 'validity must be at most 876000h',
    },
    {
      reason: 'CertificateAuthority ending before it starts',
      kind: 'CertificateAuthority',
      spec: variant('CertificateAuthority', (s) => {
        delete s['validity'];
        s['notBefore'] = '2030-01-01T00:00:00Z';
        s['notAfter'] = '2029-01-01T00:00:00Z';
      }),
      apiMessage: 'notAfter must be after notBefore',
      zodMessage: 'notAfter must be after notBefore',
    },
  ];
}
