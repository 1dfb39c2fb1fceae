/**
 * Builds the CustomResourceDefinition of every coffer.dev kind from its zod schemas, in memory.
 * The CRD files, the Helm chart's CRD templates and `coffer crds` all come from here.
 */
import { z } from 'zod';
import { group, version } from '../v1alpha1/index.ts';
import type { KindDefinition } from '../v1alpha1/index.ts';
import { toStructural } from './structural.ts';
import type { SchemaNode } from './structural.ts';

/** A CustomResourceDefinition (apiextensions.k8s.io/v1) as a plain object. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: SchemaNode[];
      schema: { openAPIV3Schema: SchemaNode };
    }[];
  };
}

/** JSON Schema of a zod schema as the API server receives it (input side: defaults are optional). */
export function structuralSchemaOf(schema: z.ZodType): SchemaNode {
  const json = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'throw' });
  return toStructural(json);
}

function rootSchema(kind: KindDefinition): SchemaNode {
  return {
    description: kind.description,
    properties: {
      apiVersion: {
        description: `API version of the object: ${group}/${version}.`,
        type: 'string',
      },
      kind: { description: `Kind of the object: ${kind.kind}.`, type: 'string' },
      // The API server forbids anything on metadata but name/generateName rules, even a description.
      metadata: { type: 'object' },
      spec: structuralSchemaOf(kind.spec),
      status: structuralSchemaOf(kind.status),
    },
    required: ['spec'],
    type: 'object',
  };
}

/** The CRD of one kind. */
export function buildCrd(kind: KindDefinition): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${kind.plural}.${group}`,
      labels: { 'app.kubernetes.io/name': 'coffer', 'app.kubernetes.io/part-of': 'coffer' },
    },
    spec: {
      group,
      names: {
        kind: kind.kind,
        listKind: kind.listKind,
        plural: kind.plural,
        singular: kind.singular,
        shortNames: [...kind.shortNames],
        categories: [...kind.categories],
      },
      scope: kind.scope,
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: kind.printerColumns.map((column) => ({ ...column })),
          schema: { openAPIV3Schema: rootSchema(kind) },
        },
      ],
    },
  };
}

/** The CRDs of `definitions` (every kind: `kindDefinitions` of src/controllers/registry.ts), in their order. */
export function buildAllCrds(definitions: readonly KindDefinition[]): CustomResourceDefinition[] {
  return definitions.map((kind) => buildCrd(kind));
}
