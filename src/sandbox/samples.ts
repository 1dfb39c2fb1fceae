/**
 * The objects `coffer sandbox` applies: the Bootstrap of `config/samples/bootstrap.yaml` (with a
 * fresh password Secret), then every file listed in `config/samples/kustomization.yaml`, in that
 * order. Rewritten for the sandbox: the namespace is set on every namespaced object, service URLs
 * point at the sandbox's devserver, the ClusterConnection reads the Bootstrap's token from the
 * sandbox namespace and admits only that namespace, and the names of the samples' namespace (the
 * token reviewer's ClusterRoleBinding subject, RoleBinding subjects, Kubernetes auth's
 * allowedNamespaces) become the sandbox namespace. The DynamicSecret sample is pointed at what
 * `dynamic-secret-sample.ts` started (PostgreSQL, or the cluster through the Kubernetes variant);
 * without one it is left out, and so are the samples' `dynamicSecret` sources.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments, parse } from 'yaml';
import { findKind, group } from '../api/v1alpha1/index.ts';
import { packageFile } from '../runtime/package-root.ts';
import {
  dynamicSecretSampleFile,
  kubernetesVariantFile,
  pointSampleAt,
  type DynamicSecretBackend,
} from './dynamic-secret-sample.ts';

/** The repository's `config/samples/`. */
export const defaultSamplesDir = packageFile('config/samples/').pathname;

/** A wire-format object as read from YAML. */
export interface WireObject extends KubernetesObject {
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A coffer.dev resource the sandbox waits for. */
export interface SandboxResource {
  readonly kind: string;
  readonly name: string;
  /** Absent for cluster-scoped kinds. */
  readonly namespace?: string;
}

/** What the sandbox applies and then watches. */
export interface SamplePlan {
  /** The password Secret and the Bootstrap, applied first. */
  readonly bootstrap: readonly WireObject[];
  /** The Bootstrap itself (also in `bootstrap`). */
  readonly bootstrapObject: WireObject;
  /** Every other sample object, in kustomization order (Secrets included). */
  readonly samples: readonly WireObject[];
  /** Every coffer.dev resource to wait for, the Connection the Bootstrap produces included. */
  readonly resources: readonly SandboxResource[];
  /** What the DynamicSecret sample was pointed at; undefined: it was left out. */
  readonly dynamicSecrets?: DynamicSecretBackend | undefined;
}

function readDocs(path: string): WireObject[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read sample ${path}: ${(error as Error).message}`, { cause: error });
  }
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as WireObject | null)
    .filter((obj): obj is WireObject => obj !== null && typeof obj.kind === 'string');
}

function isCoffer(obj: KubernetesObject): boolean {
  return (obj.apiVersion ?? '').startsWith(`${group}/`);
}

/** Kubernetes kinds of the samples that are cluster-scoped. */
const clusterScopedKinds: ReadonlySet<string> = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding']);

function isNamespaced(obj: WireObject): boolean {
  if (!isCoffer(obj)) return !clusterScopedKinds.has(obj.kind);
  return findKind(obj.kind)?.scope !== 'Cluster';
}

/**
 * What names the samples' namespace inside objects: a ClusterRoleBinding's ServiceAccount
 * subjects and an IdentityAuth's Kubernetes-auth allowedNamespaces.
 */
function localiseNamespaceNames(copy: WireObject, namespace: string): void {
  if (copy.kind === 'ClusterRoleBinding' || copy.kind === 'RoleBinding') {
    const subjects = (copy['subjects'] ?? []) as { kind?: string; namespace?: string }[];
    for (const subject of subjects) if (subject.kind === 'ServiceAccount') subject.namespace = namespace;
  }
  const kubernetes = copy.kind === 'IdentityAuth' ? copy.spec?.['kubernetes'] : undefined;
  if (kubernetes && typeof kubernetes === 'object')
    (kubernetes as Record<string, unknown>)['allowedNamespaces'] = [namespace];
}

/** A WorkloadSecret without its `dynamicSecret` sources (when no DynamicSecret sample is applied). */
function withoutLeaseSources(obj: WireObject): void {
  const sources = obj.kind === 'WorkloadSecret' ? obj.spec?.['sources'] : undefined;
  if (obj.spec && Array.isArray(sources))
    obj.spec['sources'] = sources.filter((source: { dynamicSecret?: unknown }) => !source.dynamicSecret);
}

/** Sets the namespace and rewrites what points outside the sandbox. */
function localise(obj: WireObject, namespace: string, url: string): WireObject {
  const copy = structuredClone(obj);
  if (isNamespaced(copy)) copy.metadata.namespace = namespace;
  localiseNamespaceNames(copy, namespace);
  const spec = copy.spec;
  if (!isCoffer(copy) || !spec) return copy;
  if (copy.kind === 'Bootstrap' || copy.kind === 'Connection' || copy.kind === 'ClusterConnection')
    spec['url'] = url;
  if (copy.kind === 'ClusterConnection') {
    const token = (spec['auth'] as { token?: { secretRef?: Record<string, unknown> } } | undefined)?.token;
    if (token?.secretRef) token.secretRef['namespace'] = namespace;
    spec['allowedNamespaces'] = { names: [namespace] };
  }
  return copy;
}

function kustomizationResources(dir: string): string[] {
  const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as {
    resources?: unknown;
  } | null;
  const resources = kustomization?.resources;
  if (!Array.isArray(resources) || !resources.every((r) => typeof r === 'string'))
    throw new Error(`cannot read ${join(dir, 'kustomization.yaml')}: no list of resources`);
  return resources;
}

function bootstrapObjects(dir: string, namespace: string, url: string): WireObject[] {
  const docs = readDocs(join(dir, 'bootstrap.yaml')).map((obj) => localise(obj, namespace, url));
  const bootstrap = docs.find((obj) => obj.kind === 'Bootstrap');
  const ref = (bootstrap?.spec?.['passwordSecretRef'] ?? {}) as { name?: string; key?: string };
  if (!bootstrap || !ref.name || !ref.key)
    throw new Error(`cannot use ${join(dir, 'bootstrap.yaml')}: no Bootstrap with a passwordSecretRef`);
  // A fresh password instead of the sample's placeholder; nobody needs to know it.
  const secret: WireObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: ref.name, namespace },
    type: 'Opaque',
    stringData: { [ref.key]: randomBytes(18).toString('base64url') },
  };
  return [secret, bootstrap];
}

/** Where a sample object lives, as a {@link SandboxResource}. */
export function resourceOf(obj: WireObject): SandboxResource {
  const { name, namespace } = obj.metadata;
  return namespace === undefined ? { kind: obj.kind, name } : { kind: obj.kind, name, namespace };
}

/** Options of {@link planSamples}. */
export interface PlanOptions {
  /** Directory of the samples (default `config/samples/`). */
  readonly dir?: string;
  /** What the DynamicSecret sample issues leases from; unset: that sample is left out. */
  readonly dynamicSecrets?: DynamicSecretBackend;
}

/** The objects of the kustomization's `file`, localised; the DynamicSecret sample as `backend` asks. */
function sampleFile(
  file: string,
  at: { namespace: string; url: string; dir: string },
  backend?: DynamicSecretBackend,
) {
  const dynamic = file === dynamicSecretSampleFile();
  if (dynamic && !backend) return [];
  const chosen = dynamic && backend?.provider === 'kubernetes' ? kubernetesVariantFile : file;
  const objects = readDocs(join(at.dir, chosen)).map((obj) => localise(obj, at.namespace, at.url));
  if (dynamic && backend) pointSampleAt(objects, backend, at.namespace);
  if (!backend) objects.forEach(withoutLeaseSources);
  return objects;
}

/**
 * Reads the samples from `options.dir` (default `config/samples/`) for `namespace`, with every
 * service URL set to `url` and the DynamicSecret sample pointed at `options.dynamicSecrets`.
 * Throws when a file is missing or a kind is unknown to this build.
 */
export function planSamples(namespace: string, url: string, options: PlanOptions = {}): SamplePlan {
  const dir = options.dir ?? defaultSamplesDir;
  const bootstrap = bootstrapObjects(dir, namespace, url);
  const bootstrapObject = bootstrap[1] as WireObject;
  const samples = kustomizationResources(dir).flatMap((file) =>
    sampleFile(file, { namespace, url, dir }, options.dynamicSecrets),
  );
  const unknown = samples.filter((obj) => isCoffer(obj) && !findKind(obj.kind));
  if (unknown.length > 0)
    throw new Error(`cannot apply samples: unknown kind(s) ${unknown.map((o) => o.kind).join(', ')}`);
  const spec = bootstrapObject.spec ?? {};
  const produced: SandboxResource[] =
    spec['createConnection'] === true
      ? [
          {
            kind: 'Connection',
            name:
              typeof spec['connectionName'] === 'string'
                ? spec['connectionName']
                : bootstrapObject.metadata.name,
            namespace,
          },
        ]
      : [];
  const resources = [resourceOf(bootstrapObject), ...produced, ...samples.filter(isCoffer).map(resourceOf)];
  return { bootstrap, bootstrapObject, samples, resources, dynamicSecrets: options.dynamicSecrets };
}
