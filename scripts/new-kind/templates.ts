/**
 * The files `npm run new-kind <Name>` writes for a new kind, as text: a managed kind (it mirrors
 * an object of the service) with a `spec.name`, a `connectionRef`, no references besides, no
 * Kubernetes permissions beyond its own resource, and an adapter that says on the resource's
 * Synced condition that it is not written yet. Everything compiles, generates and passes the
 * shared checks as written; the kind's author then fills in the schema, the adapter, the reasons
 * and the page.
 */

/** The names of one kind, derived from its PascalCase name. */
export interface KindNames {
  /** PascalCase, e.g. `SecretRotation`. */
  readonly kind: string;
  /** camelCase, for exports: `secretRotation`. */
  readonly camel: string;
  /** kebab-case, for files: `secret-rotation`. */
  readonly kebab: string;
  /** The CRD's plural: `secretrotations`. */
  readonly plural: string;
}

/** Names of `kind` (PascalCase, checked by the caller). */
export function kindNames(kind: string): KindNames {
  const kebab = kind.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  const lower = kind.toLowerCase();
  const plural = /(s|x|ch|sh)$/.test(lower)
    ? `${lower}es`
    : /[^aeiou]y$/.test(lower)
      ? `${lower.slice(0, -1)}ies`
      : `${lower}s`;
  return { kind, camel: kind[0]?.toLowerCase() + kind.slice(1), kebab, plural };
}

/** `src/api/v1alpha1/<kebab>.ts`: the schema and metadata. */
export function apiModule({ kind, camel, plural }: KindNames): string {
  return `/**
 * ${kind}: an object of the service, found again by name (its natural key, also the key for
 * adoption and crash recovery). Every field has a description: it is what \`kubectl explain\` and
 * the kind's page show.
 */
import { z } from 'zod';
import { managedFields } from './common.ts';
import { defineKind } from './kind.ts';
import { managedStatusFields } from './status.ts';

export const ${camel}Spec = z
  .object({
    ...managedFields('Delete'),
    name: z.string().min(1).max(64).describe('Name of the ${kind} in the service, unique there (1–64 characters).'),
  })
  .describe('Desired ${kind}.');
export type ${kind}Spec = z.output<typeof ${camel}Spec>;

export const ${camel}Status = z.object({ ...managedStatusFields }).describe('Observed state of the ${kind}.');
export type ${kind}Status = z.output<typeof ${camel}Status>;

export const ${camel}Kind = defineKind({
  kind: '${kind}',
  plural: '${plural}',
  shortNames: [],
  scope: 'Namespaced',
  description: 'A ${kind} of the service, kept as the spec says.',
  spec: ${camel}Spec,
  status: ${camel}Status,
  defaultDeletionPolicy: 'Delete',
});
`;
}

/** `src/controllers/<kebab>/index.ts`: the controller and the registration. */
export function indexModule({ kind, camel, kebab }: KindNames): string {
  return `/**
 * ${kind}: an object of the service, on the generic managed reconciler.
 */
import { ${camel}Kind, type ${kind}Spec } from '../../api/v1alpha1/${kebab}.ts';
import type { KindController } from '../kind-controller.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import { ${camel}Adapter } from './adapter.ts';
import { ${camel}Reasons } from './reasons.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [connectionReference];

export const ${camel}Controller: KindController<${kind}Spec, undefined> = {
  definition: ${camel}Kind,
  createAdapter: ${camel}Adapter,
};

export const ${camel}Registration: KindRegistration = {
  definition: ${camel}Controller.definition,
  runtime: { reconciler: 'managed', controller: ${camel}Controller },
  references,
  rbac: [],
  reasons: ${camel}Reasons,
  sample: 'config/samples/${kebab}.yaml',
  sampleLeftOut: 'its adapter is not written yet',
  docPage: 'docs/kinds/${kebab}.md',
  summary: 'A ${kind} of the service.',
};
`;
}

/** `src/controllers/<kebab>/reasons.ts`: the kind's own reasons. */
export function reasonsModule({ kind, camel }: KindNames): string {
  return `/**
 * Reasons of ${kind}.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const ${camel}Reasons = declareReasons('${kind}', {
  AdapterNotWritten: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The ${kind} adapter does not talk to the service yet (src/controllers/${kindNames(kind).kebab}/adapter.ts).',
  },
});
`;
}

/** `src/controllers/<kebab>/adapter.ts`: observe / create / update / delete, to be written. */
export function adapterModule({ kind, camel, kebab }: KindNames): string {
  return `/**
 * ${kind} adapter: observe / create / update / delete of the service object, and its natural-key
 * lookup (by \`spec.name\`) for crash recovery. Not written yet: every call ends the reconcile
 * with \`Synced=False\` reason \`AdapterNotWritten\`.
 */
import type { ${kind}Spec } from '../../api/v1alpha1/${kebab}.ts';
import type { ExternalClient, ManagedAdapter } from '../../managed/external-client.ts';
import { TerminalError } from '../../runtime/errors.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { ${camel}Reasons } from './reasons.ts';

function notWritten(): never {
  throw new TerminalError(${camel}Reasons.names.AdapterNotWritten, 'cannot reconcile ${kind}: its adapter is not written yet');
}

const client: ExternalClient<${kind}Spec, undefined> = {
  observe: () => Promise.resolve(notWritten()),
  create: () => Promise.resolve(notWritten()),
  update: () => Promise.resolve(notWritten()),
  delete: () => Promise.resolve(notWritten()),
  findByNaturalKey: () => Promise.resolve(notWritten()),
};

/** The ${kind} adapter on the operator's services. */
export function ${camel}Adapter(services: OperatorServices): ManagedAdapter<${kind}Spec, undefined> {
  return {
    async connect(obj) {
      await services.connectionFor(obj);
      return client;
    },
  };
}
`;
}

/** `config/samples/<kebab>.yaml`. */
export function sample({ kind, kebab }: KindNames): string {
  return `# A ${kind} named like the resource.
apiVersion: coffer.dev/v1alpha1
kind: ${kind}
metadata:
  name: example-${kebab}
spec:
  connectionRef:
    name: coffer
  name: example-${kebab}
`;
}

/** `docs/kinds/<kebab>.md`: the page, with the parts a reader needs. */
export function docPage(names: KindNames): string {
  const { kind, kebab, plural } = names;
  return `# ${kind}

A **${kind}** is an object of the service, kept as its spec says.

## Example

\`\`\`yaml
${sample(names).split('\n').slice(1).join('\n')}\`\`\`

\`\`\`console
$ kubectl apply -f ${kebab}.yaml
$ kubectl get ${plural}
\`\`\`

## Fields

Every field of the spec, as the CRD declares it (what \`kubectl explain\` prints):

<!-- generated:fields -->
<!-- /generated:fields -->

## Status

| condition | reason | meaning |
|---|---|---|
| \`Ready=True\` | \`Available\` | The object exists in the service. |
| \`Synced=False\` | \`AdapterNotWritten\` | The adapter does not talk to the service yet. |
`;
}

/**
 * `test/support/conformance/kinds/<kebab>.ts`: the kind's data for the conformance suite
 * (test/integration/conformance.test.ts). Until the adapter is written only the case that needs
 * no service object runs; the others are declared not applicable, with that reason.
 */
export function conformanceModule({ kind, kebab }: KindNames): string {
  return `// ${kind}: an object of the service, found by name. Its adapter is not written yet: write
// read, createExternal, inLine, drift and update with it, then empty notApplicable.
import type { KindConformance } from '../types.ts';

const pending = 'the ${kind} adapter is not written yet (src/controllers/${kebab}/adapter.ts)';

function notWritten(): never {
  throw new Error(pending);
}

export const conformance: KindConformance = {
  kind: '${kind}',
  spec: (ctx, name) => ({ name: ctx.unique(name) }),
  read: () => Promise.resolve(notWritten()),
  createExternal: () => Promise.resolve(notWritten()),
  inLine: () => notWritten(),
  drift: () => Promise.resolve(notWritten()),
  update: { spec: { name: 'updated' }, applied: () => notWritten() },
  notApplicable: {
    create: pending,
    update: pending,
    drift: pending,
    'observe-only': pending,
    adoption: pending,
    'already-exists': pending,
    orphan: pending,
    delete: pending,
    abandon: pending,
    'connection-gone': pending,
  },
};
`;
}
