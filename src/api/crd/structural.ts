/**
 * Turns the JSON Schema that zod emits (OpenAPI 3.0 target) into a Kubernetes structural schema:
 * refs inlined, a `type` on every node (except `x-kubernetes-preserve-unknown-fields` /
 * `x-kubernetes-int-or-string` nodes), no `additionalProperties` next to `properties`, no
 * unions, only keywords the API server knows, keys in a stable order.
 */

/** A JSON Schema node. */
export type SchemaNode = Record<string, unknown>;

/** Keywords copied as they are. Anything else is an error, so nothing unsupported slips through. */
const passThrough = new Set([
  'description',
  'type',
  'format',
  'pattern',
  'enum',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'required',
  'nullable',
  'x-kubernetes-validations',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
]);

/** Keywords handled specially below. */
const handled = new Set([
  'properties',
  'additionalProperties',
  'items',
  'anyOf',
  'oneOf',
  '$ref',
  '$schema',
  '$defs',
  'definitions',
]);

/** zod's ±(2^53-1) bounds on integers carry no information for Kubernetes. */
const safeIntegerBound = Number.MAX_SAFE_INTEGER;
/** Formats the API server checks itself; zod's own regex for them is dropped as noise. */
const formatsWithoutPattern = new Set(['date-time', 'email']);

function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(path: string, problem: string): never {
  throw new Error(`cannot build structural schema at ${path || '<root>'}: ${problem}`);
}

type Defs = Record<string, unknown>;

function resolveRef(node: SchemaNode, defs: Defs, path: string): SchemaNode {
  const ref = node['$ref'];
  if (typeof ref !== 'string') return node;
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
  const target = match?.[1] ? defs[match[1]] : undefined;
  if (!isNode(target)) fail(path, `unresolvable $ref ${ref}`);
  const { $ref: _ref, ...rest } = node;
  return { ...target, ...rest };
}

function unusedKeywords(node: SchemaNode, path: string): void {
  for (const key of Object.keys(node)) {
    if (!passThrough.has(key) && !handled.has(key)) fail(path, `unsupported keyword "${key}"`);
  }
}

function convertChildren(node: SchemaNode, out: SchemaNode, defs: Defs, path: string): void {
  const properties = node['properties'];
  if (isNode(properties)) {
    const converted: SchemaNode = {};
    for (const [name, child] of Object.entries(properties)) {
      if (!isNode(child)) fail(`${path}.${name}`, 'property schema is not an object');
      converted[name] = convert(child, defs, `${path}.${name}`);
    }
    // An object without fields (e.g. a switch such as `jwt.clusterIssuer: {}`) gets no
    // `properties`: the API server would drop an empty one from the stored CRD.
    if (Object.keys(converted).length > 0) out['properties'] = converted;
  }
  const additional = node['additionalProperties'];
  if (isNode(additional)) {
    if (isNode(properties) && Object.keys(properties).length > 0) {
      fail(path, 'additionalProperties beside properties is not allowed in a structural schema');
    }
    out['additionalProperties'] = convert(additional, defs, `${path}{*}`);
  }
  const items = node['items'];
  if (isNode(items)) out['items'] = convert(items, defs, `${path}[*]`);
}

function cleanScalars(out: SchemaNode): void {
  if (out['type'] === 'integer' || out['type'] === 'number') {
    if (out['minimum'] === -safeIntegerBound) delete out['minimum'];
    if (out['maximum'] === safeIntegerBound) delete out['maximum'];
  }
  if (typeof out['format'] === 'string' && formatsWithoutPattern.has(out['format'])) delete out['pattern'];
}

function sortKeys(node: SchemaNode): SchemaNode {
  const sorted: SchemaNode = {};
  for (const key of Object.keys(node).sort()) sorted[key] = node[key];
  return sorted;
}

function convert(input: SchemaNode, defs: Defs, path: string): SchemaNode {
  const node = resolveRef(input, defs, path);
  unusedKeywords(node, path);
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  const out: SchemaNode = {};
  for (const [key, value] of Object.entries(node)) if (passThrough.has(key)) out[key] = value;
  if (preserve) {
    // A value of several shapes (e.g. string or list): the API server keeps it as is and the
    // node's CEL rules check the shape. The union itself cannot be expressed structurally.
    delete out['type'];
    return sortKeys(out);
  }
  if (node['anyOf'] !== undefined || node['oneOf'] !== undefined) {
    fail(path, 'unions need x-kubernetes-preserve-unknown-fields and a CEL rule for their shapes');
  }
  if (typeof out['type'] !== 'string' && !intOrString) fail(path, 'every node needs a type');
  convertChildren(node, out, defs, path);
  cleanScalars(out);
  return sortKeys(out);
}

/** Converts a zod-emitted JSON Schema into a structural schema; throws on anything unsupported. */
export function toStructural(schema: SchemaNode): SchemaNode {
  const defs = {
    ...(isNode(schema['definitions']) ? schema['definitions'] : {}),
    ...(isNode(schema['$defs']) ? schema['$defs'] : {}),
  };
  return convert(schema, defs, '');
}
