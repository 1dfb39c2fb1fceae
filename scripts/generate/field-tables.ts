/**
 * The field tables of the kind pages (`docs/kinds/<kind>.md`, between `<!-- generated:fields -->`
 * markers) from the kind's schema: every spec field as the CRD declares it (the structural schema
 * the API server receives, built from the zod schema), with its type, whether it is required and
 * its description (defaults are in the descriptions) — the text `kubectl explain` prints. Prose around the table is
 * hand-written and stays.
 */
import { structuralSchemaOf } from '../../src/api/crd/build.ts';
import type { SchemaNode } from '../../src/api/crd/structural.ts';
import { kindRegistry } from '../../src/controllers/registry.ts';
import type { GeneratedRegion, Generator } from './types.ts';

/** One row: a field's path below `spec` and what the schema says about it. */
interface FieldRow {
  readonly path: string;
  readonly node: SchemaNode;
  readonly required: boolean;
}

function objectOf(value: unknown): SchemaNode | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as SchemaNode)
    : undefined;
}

/** The node whose properties describe `node`'s fields: itself, or its list items. */
function fieldsNode(node: SchemaNode): { node: SchemaNode; suffix: string } {
  const items = node['type'] === 'array' ? objectOf(node['items']) : undefined;
  return items ? { node: items, suffix: '[]' } : { node, suffix: '' };
}

/** Every field below `node`, depth first, in declaration order. */
function rowsOf(node: SchemaNode, prefix: string): FieldRow[] {
  const { node: holder, suffix } = fieldsNode(node);
  const properties = objectOf(holder['properties']) ?? {};
  const required = new Set(Array.isArray(holder['required']) ? (holder['required'] as string[]) : []);
  return Object.entries(properties).flatMap(([name, value]) => {
    const child = objectOf(value) ?? {};
    const path = prefix === '' ? name : `${prefix}${suffix}.${name}`;
    return [{ path, node: child, required: required.has(name) }, ...rowsOf(child, path)];
  });
}

function typeOf(node: SchemaNode): string {
  const type = typeof node['type'] === 'string' ? node['type'] : 'object';
  if (type === 'array') return `${typeOf(objectOf(node['items']) ?? {})}[]`;
  if (Array.isArray(node['enum']))
    return (node['enum'] as unknown[]).map((v) => `\`${String(v)}\``).join(', ');
  return type;
}

/** Table-safe text: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

function row({ path, node, required }: FieldRow): string {
  const description = typeof node['description'] === 'string' ? node['description'] : '';
  const text = required ? `${description} Required.` : description;
  return `| \`${path}\` | ${cell(typeOf(node))} | ${cell(text.trim())} |`;
}

/** The table of `spec`'s fields of a kind. */
export function fieldTable(spec: SchemaNode): string {
  const lines = ['| field | type | meaning |', '|---|---|---|', ...rowsOf(spec, '').map(row)];
  return `${lines.join('\n')}\n`;
}

/** The `fields` region of every kind's page. */
export function fieldRegions(): GeneratedRegion[] {
  return kindRegistry.map((kind) => ({
    path: kind.docPage,
    name: 'fields',
    content: fieldTable(structuralSchemaOf(kind.definition.spec)),
  }));
}

export const fieldTablesGenerator: Generator = {
  name: 'field-tables',
  generate: () => ({ regions: fieldRegions() }),
};
