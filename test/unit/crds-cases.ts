// Shared fixtures of the CRD tests: the samples in config/samples, and a table of invalid objects
// that both zod (unit test) and the real API server (integration test) must reject.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { timeBoundCases } from './crds-time-cases.ts';
import { serviceAccountLoginCases } from './crds-connection-cases.ts';
import { tokenAuthVariant } from './identity-auth-token-spec.ts';

export const repoRoot = join(import.meta.dirname, '..', '..');
export const samplesDir = join(repoRoot, 'config', 'samples');

/** A Kubernetes object as read from YAML. */
export interface SampleObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Every object of every sample file (kustomization.yaml excluded), with its file name. */
export function loadSamples(): { file: string; object: SampleObject }[] {
  const files = readdirSync(samplesDir)
    .filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml')
    .sort();
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(join(samplesDir, file), 'utf8')).map((doc) => ({
      file,
      object: doc.toJS() as SampleObject,
    })),
  );
}

type Spec = Record<string, unknown>;

/** A deep copy of the spec of the (first) sample of `kind`, to derive variants from. */
export function sampleSpec(kind: string): Spec {
  const found = loadSamples().find(
    (s) => s.object.kind === kind && s.object.apiVersion === 'coffer.dev/v1alpha1',
  );
  if (!found?.object.spec) throw new Error(`cannot find a sample of kind ${kind}`);
  return structuredClone(found.object.spec);
}

/** The sample spec of `kind` changed by `edit`. */
function variant(kind: string, edit: (spec: Spec) => void): Spec {
  const spec = sampleSpec(kind);
  edit(spec);
  return spec;
}

/** An object the API server (and, unless it needs the old object, zod) must refuse. */
export interface BadObjectCase {
  readonly reason: string;
  readonly kind: string;
  /** The spec the object is created with (invalid, unless updatedSpec is set). */
  readonly spec: Spec;
  /** For immutability rules: the object is created with spec (valid) and then updated to this. */
  readonly updatedSpec?: Spec;
  /** Text the API server's error message must contain. */
  readonly apiMessage: string;
  /** Text zod's error must contain; unset: zod must only reject (its wording differs). */
  readonly zodMessage?: string;
}

const identityAuthToken = (edit: (s: Spec) => void) => tokenAuthVariant(sampleSpec('IdentityAuth'), edit);
const at = (spec: Spec, path: string): Spec => path.split('.').reduce((node, key) => node[key] as Spec, spec);

/** At least 15 invalid objects across kinds: types, bounds, exactly-one-of, TTLs, immutability, enums. */
export const badObjects: readonly BadObjectCase[] = [
  {
    reason: 'Connection with both token and universalAuth',
    kind: 'Connection',
    spec: variant('Connection', (s) => {
      at(s, 'auth')['universalAuth'] = {
        clientIdSecretRef: { name: 'ua', key: 'clientId' },
        clientSecretSecretRef: { name: 'ua', key: 'clientSecret' },
      };
    }),
    apiMessage: 'auth: set exactly one of token, universalAuth, kubernetes, jwt or oidc',
    zodMessage: 'auth: set exactly one of token, universalAuth, kubernetes, jwt or oidc',
  },
  {
    reason: 'Connection without any authentication',
    kind: 'Connection',
    spec: variant('Connection', (s) => {
      s['auth'] = {};
    }),
    apiMessage: 'auth: set exactly one of token, universalAuth, kubernetes, jwt or oidc',
    zodMessage: 'auth: set exactly one of token, universalAuth, kubernetes, jwt or oidc',
  },
  ...serviceAccountLoginCases(),
  {
    reason: 'Connection with requestsPerMinute as a string (wrong type)',
    kind: 'Connection',
    spec: variant('Connection', (s) => {
      s['requestsPerMinute'] = '600';
    }),
    apiMessage: '.spec.requestsPerMinute: expected numeric (int or float), got string',
  },
  {
    reason: 'Connection with an ftp URL',
    kind: 'Connection',
    spec: variant('Connection', (s) => {
      s['url'] = 'ftp://secrets.example.com';
    }),
    apiMessage: 'spec.url in body should match',
  },
  {
    reason: 'ClusterConnection allowing no namespaces at all',
    kind: 'ClusterConnection',
    spec: variant('ClusterConnection', (s) => {
      s['allowedNamespaces'] = {};
    }),
    apiMessage: 'allowedNamespaces: set names, selector or both',
    zodMessage: 'allowedNamespaces: set names, selector or both',
  },
  {
    reason: 'Bootstrap with an invalid e-mail address',
    kind: 'Bootstrap',
    spec: variant('Bootstrap', (s) => {
      s['email'] = 'not-an-email';
    }),
    apiMessage: 'spec.email in body must be of type email',
  },
  {
    reason: 'Project slug shorter than 5 characters',
    kind: 'Project',
    spec: variant('Project', (s) => {
      s['slug'] = 'demo';
    }),
    apiMessage: 'spec.slug in body should be at least 5 chars long',
  },
  {
    reason: 'Project with an unknown deletion policy',
    kind: 'Project',
    spec: variant('Project', (s) => {
      s['deletionPolicy'] = 'Destroy';
    }),
    apiMessage: 'spec.deletionPolicy: Unsupported value: "Destroy": supported values: "Delete", "Orphan"',
  },
  {
    reason: 'Project with two environments of the same slug',
    kind: 'Project',
    spec: variant('Project', (s) => {
      (s['environments'] as Spec[]).push({ name: 'Dev again', slug: 'dev' });
    }),
    apiMessage: '.spec.environments: duplicate entries for key [slug="dev"]',
  },
  {
    reason: 'Project slug changed after creation',
    kind: 'Project',
    spec: sampleSpec('Project'),
    updatedSpec: variant('Project', (s) => {
      s['slug'] = 'demo-renamed';
    }),
    apiMessage: 'slug, type, template and templateRef are immutable; create a new Project to change them',
  },
  {
    reason: 'Project with a poll interval below 10s',
    kind: 'Project',
    spec: variant('Project', (s) => {
      s['pollInterval'] = '5s';
    }),
    apiMessage: 'pollInterval must be at least 10s',
    zodMessage: 'pollInterval must be at least 10s',
  },
  {
    reason: 'Identity membership role naming both a slug and a ProjectRole',
    kind: 'Identity',
    spec: variant('Identity', (s) => {
      const roles = (s['projectMemberships'] as Spec[])[0]?.['roles'] as Spec[];
      (roles[0] as Spec)['role'] = 'viewer';
    }),
    apiMessage: 'each membership role must set exactly one of role or projectRoleRef',
    zodMessage: 'each membership role must set exactly one of role or projectRoleRef',
  },
  {
    reason: 'IdentityAuth with method jwt but no jwt block',
    kind: 'IdentityAuth',
    spec: identityAuthToken((s) => {
      s['method'] = 'jwt';
      delete s['credentials'];
    }),
    apiMessage: 'spec.jwt is required when method is jwt and must not be set otherwise',
    zodMessage: 'spec.jwt is required when method is jwt and must not be set otherwise',
  },
  {
    reason: 'IdentityAuth with method token and an oidc block',
    kind: 'IdentityAuth',
    spec: identityAuthToken((s) => {
      s['oidc'] = {
        oidcDiscoveryUrl: 'https://issuer.example.com',
        boundIssuer: 'https://issuer.example.com',
      };
    }),
    apiMessage: 'spec.oidc is required when method is oidc and must not be set otherwise',
    zodMessage: 'spec.oidc is required when method is oidc and must not be set otherwise',
  },
  {
    reason: 'IdentityAuth with TTL greater than max TTL',
    kind: 'IdentityAuth',
    spec: identityAuthToken((s) => {
      s['accessTokenTTL'] = 7200;
      s['accessTokenMaxTTL'] = 3600;
    }),
    apiMessage: 'accessTokenTTL cannot be greater than accessTokenMaxTTL',
    zodMessage: 'accessTokenTTL cannot be greater than accessTokenMaxTTL',
  },
  {
    reason: 'IdentityAuth with a TTL above ten years',
    kind: 'IdentityAuth',
    spec: identityAuthToken((s) => {
      s['accessTokenTTL'] = 315360001;
      s['accessTokenMaxTTL'] = 315360001;
    }),
    apiMessage: 'spec.accessTokenTTL in body should be less than or equal to 315360000',
  },
  {
    reason: 'IdentityAuth issuing credentials for aws auth',
    kind: 'IdentityAuth',
    spec: identityAuthToken((s) => {
      s['method'] = 'aws';
    }),
    apiMessage: 'credentials can only be issued for methods token and universal',
    zodMessage: 'credentials can only be issued for methods token and universal',
  },
  {
    reason: 'IdentityAuth with a rotation overlap longer than the rotation period',
    kind: 'IdentityAuth',
    spec: identityAuthToken((s) => {
      at(s, 'credentials')['overlap'] = '48h';
    }),
    apiMessage: 'credentials.overlap must be shorter than credentials.rotateEvery',
    zodMessage: 'credentials.overlap must be shorter than credentials.rotateEvery',
  },
  {
    reason: 'IdentityAuth moved to another identity',
    kind: 'IdentityAuth',
    spec: sampleSpec('IdentityAuth'),
    updatedSpec: identityAuthToken((s) => {
      s['identityRef'] = { name: 'someone-else' };
    }),
    apiMessage: 'identityRef is immutable; create a new IdentityAuth for another identity',
  },
  {
    reason: 'AdditionalPrivilege slug longer than 60 characters',
    kind: 'AdditionalPrivilege',
    spec: variant('AdditionalPrivilege', (s) => {
      s['slug'] = 'a'.repeat(61);
    }),
    apiMessage: 'spec.slug: Too long: may not be more than 60 bytes',
  },
  {
    reason: 'AdditionalPrivilege with a zero-length temporary range',
    kind: 'AdditionalPrivilege',
    spec: variant('AdditionalPrivilege', (s) => {
      s['temporary'] = { range: '0h' };
    }),
    apiMessage: 'spec.temporary.range in body should match',
  },
  ...timeBoundCases(),
  {
    reason: 'SecretBatch entry with both a literal value and valueFrom',
    kind: 'SecretBatch',
    spec: variant('SecretBatch', (s) => {
      const entry = (s['secrets'] as Spec[])[0] as Spec;
      entry['valueFrom'] = { secretKeyRef: { name: 'demo-app-config', key: 'API_KEY' } };
    }),
    apiMessage: 'each secret must set exactly one of value or valueFrom',
    zodMessage: 'each secret must set exactly one of value or valueFrom',
  },
  {
    reason: 'SecretBatch with a reminder note over 1024 characters',
    kind: 'SecretBatch',
    spec: variant('SecretBatch', (s) => {
      ((s['secrets'] as Spec[])[0] as Spec)['reminder'] = { note: 'x'.repeat(1025), repeatDays: 30 };
    }),
    apiMessage: 'spec.secrets[0].reminder.note: Too long: may not be more than 1024 bytes',
  },
  {
    reason: 'SecretBatch moved to another environment',
    kind: 'SecretBatch',
    spec: sampleSpec('SecretBatch'),
    updatedSpec: variant('SecretBatch', (s) => {
      s['environment'] = 'prod';
    }),
    apiMessage: 'projectRef, environment and secretPath are immutable',
  },
  {
    reason: 'CertificateAuthority with an unknown key algorithm',
    kind: 'CertificateAuthority',
    spec: variant('CertificateAuthority', (s) => {
      s['keyAlgorithm'] = 'RSA_1024';
    }),
    apiMessage: 'spec.keyAlgorithm: Unsupported value: "RSA_1024"',
  },
  {
    reason: 'CertificateAuthority common name changed after creation',
    kind: 'CertificateAuthority',
    spec: sampleSpec('CertificateAuthority'),
    updatedSpec: variant('CertificateAuthority', (s) => {
      s['commonName'] = 'Another Root CA';
    }),
    apiMessage: 'a CertificateAuthority cannot be changed after creation',
  },
  {
    reason: 'CertificateAuthority with notAfter and validity',
    kind: 'CertificateAuthority',
    spec: variant('CertificateAuthority', (s) => {
      s['notAfter'] = '2035-01-01T00:00:00Z';
    }),
    apiMessage: 'set at most one of notAfter or validity',
    zodMessage: 'set at most one of notAfter or validity',
  },
  {
    reason: 'ProjectTemplate named default',
    kind: 'ProjectTemplate',
    spec: variant('ProjectTemplate', (s) => {
      s['name'] = 'default';
    }),
    apiMessage: 'name must not be default (reserved by the service)',
    zodMessage: 'name must not be default (reserved by the service)',
  },
  {
    reason: 'ProjectTemplate with environment positions 1, 2, 4',
    kind: 'ProjectTemplate',
    spec: variant('ProjectTemplate', (s) => {
      ((s['environments'] as Spec[])[2] as Spec)['position'] = 4;
    }),
    apiMessage: 'environment positions must be exactly 1..n, each used once',
    zodMessage: 'environment positions must be exactly 1..n, each used once',
  },
  {
    reason: 'ProjectTemplate using a namespaced Connection',
    kind: 'ProjectTemplate',
    spec: variant('ProjectTemplate', (s) => {
      s['connectionRef'] = { kind: 'Connection', name: 'coffer' };
    }),
    apiMessage:
      'spec.connectionRef.kind: Unsupported value: "Connection": supported values: "ClusterConnection"',
  },
  {
    reason: 'ProjectTemplate description over 256 characters',
    kind: 'ProjectTemplate',
    spec: variant('ProjectTemplate', (s) => {
      s['description'] = 'd'.repeat(257);
    }),
    apiMessage: 'spec.description: Too long: may not be more than 256 bytes',
  },
  {
    reason: 'ProjectRole with a predefined slug',
    kind: 'ProjectRole',
    spec: variant('ProjectRole', (s) => {
      s['slug'] = 'admin';
    }),
    apiMessage: 'slug must not be a predefined role slug',
    zodMessage: 'slug must not be a predefined role slug',
  },
  {
    reason: 'Integration with isActive as a string',
    kind: 'Integration',
    spec: variant('Integration', (s) => {
      s['isActive'] = 'yes';
    }),
    apiMessage: '.spec.isActive: expected boolean',
  },
  // Targets the cluster would fill with credentials, or act on: the CRD allows only plain-data types.
  ...['kubernetes.io/service-account-token', 'bootstrap.kubernetes.io/token', 'helm.sh/release.v1'].map(
    (type): BadObjectCase => ({
      reason: `WorkloadSecret target of type ${type}`,
      kind: 'WorkloadSecret',
      spec: variant('WorkloadSecret', (s) => {
        at(s, 'target.secret')['type'] = type;
      }),
      apiMessage: `spec.target.secret.type: Unsupported value: "${type}"`,
    }),
  ),
];
