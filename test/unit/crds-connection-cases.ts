// Invalid Connection specs of the ServiceAccount-token logins (auth.kubernetes, auth.jwt,
// auth.oidc), for the shared table of crds-cases.ts: zod and the API server must both refuse them.
import { sampleSpec, type BadObjectCase } from './crds-cases.ts';

type Spec = Record<string, unknown>;

function connectionVariant(edit: (spec: Spec) => void): Spec {
  const spec = sampleSpec('Connection');
  edit(spec);
  return spec;
}

/** The cases; a function, so it runs after crds-cases.ts (which imports this file) is initialised. */
export function serviceAccountLoginCases(): BadObjectCase[] {
  return [
    {
      reason: 'Connection with both token and kubernetes auth',
      kind: 'Connection',
      spec: connectionVariant((s) => {
        (s['auth'] as Spec)['kubernetes'] = { identityId: 'id', serviceAccountToken: { projected: {} } };
      }),
      apiMessage: 'auth: set exactly one of token, universalAuth, kubernetes, jwt or oidc',
      zodMessage: 'auth: set exactly one of token, universalAuth, kubernetes, jwt or oidc',
    },
    {
      reason: 'Connection with a ServiceAccount token from both sources',
      kind: 'Connection',
      spec: connectionVariant((s) => {
        s['auth'] = {
          jwt: {
            identityId: 'id',
            serviceAccountToken: { projected: {}, serviceAccountRef: { name: 'app', audiences: ['coffer'] } },
          },
        };
      }),
      apiMessage: 'serviceAccountToken: set exactly one of projected or serviceAccountRef',
      zodMessage: 'serviceAccountToken: set exactly one of projected or serviceAccountRef',
    },
    {
      reason: 'Connection with a ServiceAccount token from no source',
      kind: 'Connection',
      spec: connectionVariant((s) => {
        s['auth'] = { oidc: { identityId: 'id', serviceAccountToken: {} } };
      }),
      apiMessage: 'serviceAccountToken: set exactly one of projected or serviceAccountRef',
      zodMessage: 'serviceAccountToken: set exactly one of projected or serviceAccountRef',
    },
    {
      reason: 'Connection requesting a ServiceAccount token shorter than the API server allows',
      kind: 'Connection',
      spec: connectionVariant((s) => {
        s['auth'] = {
          kubernetes: {
            identityId: 'id',
            serviceAccountToken: {
              serviceAccountRef: { name: 'app', audiences: ['coffer'], expirationSeconds: 60 },
            },
          },
        };
      }),
      apiMessage: 'should be greater than or equal to 600',
    },
    {
      reason: 'Connection requesting a ServiceAccount token without audiences',
      kind: 'Connection',
      spec: connectionVariant((s) => {
        s['auth'] = {
          kubernetes: {
            identityId: 'id',
            serviceAccountToken: { serviceAccountRef: { name: 'app', audiences: [] } },
          },
        };
      }),
      apiMessage: 'should have at least 1 items',
    },
    {
      reason: 'Connection reading a projected token through a .. segment',
      kind: 'Connection',
      spec: connectionVariant((s) => {
        s['auth'] = {
          jwt: {
            identityId: 'id',
            serviceAccountToken: {
              projected: { path: '/var/run/secrets/coffer.dev/serviceaccount/../../../../proc/self/environ' },
            },
          },
        };
      }),
      apiMessage: 'path: must be a normalized absolute path (no empty, . or .. segments, no trailing /)',
      zodMessage: 'path: must be a normalized absolute path (no empty, . or .. segments, no trailing /)',
    },
    ...identityRefCases(),
  ];
}

const demoCiToken = { serviceAccountRef: { name: 'demo-ci', audiences: ['coffer'] } };

/** `identityId` or `identityRef`: exactly one; a ClusterConnection's reference names its namespace. */
function identityRefCases(): BadObjectCase[] {
  const clusterSpec = (login: Spec): Spec => {
    const spec = sampleSpec('ClusterConnection');
    spec['auth'] = { kubernetes: login };
    return spec;
  };
  return [
    {
      reason: 'Connection naming its login identity by both id and reference',
      kind: 'Connection',
      spec: connectionVariant((s) => {
        s['auth'] = {
          kubernetes: {
            identityId: 'id',
            identityRef: { name: 'demo-ci' },
            serviceAccountToken: demoCiToken,
          },
        };
      }),
      apiMessage: 'kubernetes: set exactly one of identityId or identityRef',
      zodMessage: 'kubernetes: set exactly one of identityId or identityRef',
    },
    {
      reason: 'Connection naming no login identity',
      kind: 'Connection',
      spec: connectionVariant((s) => {
        s['auth'] = { jwt: { serviceAccountToken: demoCiToken } };
      }),
      apiMessage: 'jwt: set exactly one of identityId or identityRef',
      zodMessage: 'jwt: set exactly one of identityId or identityRef',
    },
    {
      reason: 'ClusterConnection naming an Identity without its namespace',
      kind: 'ClusterConnection',
      spec: clusterSpec({ identityRef: { name: 'demo-ci' }, serviceAccountToken: { projected: {} } }),
      apiMessage: 'spec.auth.kubernetes.identityRef.namespace: Required value',
    },
    {
      reason: 'ClusterConnection naming its login identity by both id and reference',
      kind: 'ClusterConnection',
      spec: clusterSpec({
        identityId: 'id',
        identityRef: { name: 'demo-ci', namespace: 'default' },
        serviceAccountToken: { projected: {} },
      }),
      apiMessage: 'kubernetes: set exactly one of identityId or identityRef',
      zodMessage: 'kubernetes: set exactly one of identityId or identityRef',
    },
  ];
}
