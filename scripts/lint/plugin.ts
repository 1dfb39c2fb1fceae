/**
 * Coffer's local ESLint plugin (registered in `eslint.config.js`):
 *
 * - `coffer/floors`: an import must not point up the floors of `src/` (`floors.ts`).
 * - `coffer/no-cycle`: no cycle of run-time imports among the files of `src/` (`import-graph.ts`).
 *
 * Both take an optional `{ root }` (default: ESLint's working directory), the folder holding
 * `src/`. The import graph is read once per root and ESLint process, so an editor's long-lived
 * ESLint server sees cycles as they were at its start; `npm run lint` always reads them fresh.
 */
import path from 'node:path';
import type { ESLint, Rule } from 'eslint';
import { importViolation } from './floors.ts';
import { cyclicComponents, readImportGraph, type ImportGraph } from './import-graph.ts';

type Node = Rule.Node;

const rootSchema = [
  { type: 'object', properties: { root: { type: 'string' } }, additionalProperties: false },
];

function rootOf(context: Rule.RuleContext): string {
  const options = context.options[0] as { root?: string } | undefined;
  return path.resolve(options?.root ?? context.cwd);
}

function relative(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

/** Calls `check` with every relative specifier of a static or dynamic import or re-export. */
function onImports(check: (node: Node, specifier: string) => void): Rule.RuleListener {
  const source = (node: Node & { source?: unknown }): void => {
    const literal = node.source as { type?: string; value?: unknown } | null | undefined;
    if (literal?.type !== 'Literal' || typeof literal.value !== 'string') return;
    if (literal.value.startsWith('.')) check(node, literal.value);
  };
  return {
    ImportDeclaration: source,
    ExportNamedDeclaration: source,
    ExportAllDeclaration: source,
    ImportExpression: source,
  };
}

const floors: Rule.RuleModule = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports point down the floors of src/ (scripts/lint/floors.ts)' },
    schema: rootSchema,
    messages: { upward: '{{reason}}' },
  },
  create(context) {
    const root = rootOf(context);
    const from = relative(root, context.filename);
    return onImports((node, specifier) => {
      const to = relative(root, path.resolve(path.dirname(context.filename), specifier));
      const reason = importViolation(from, to);
      if (reason) context.report({ node, messageId: 'upward', data: { reason } });
    });
  },
};

const graphs = new Map<string, { graph: ImportGraph; cycles: Map<string, readonly string[]> }>();

function cyclesOf(root: string): { graph: ImportGraph; cycles: Map<string, readonly string[]> } {
  let entry = graphs.get(root);
  if (!entry) {
    const graph = readImportGraph(root);
    entry = { graph, cycles: cyclicComponents(graph) };
    graphs.set(root, entry);
  }
  return entry;
}

/** The shortest import path from `start` to `goal` within `members` (both included). */
function pathWithin(graph: ImportGraph, members: ReadonlySet<string>, start: string, goal: string): string[] {
  const previous = new Map<string, string>([[start, start]]);
  const queue = [start];
  while (queue.length > 0 && !previous.has(goal)) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next) || previous.has(next)) continue;
      previous.set(next, node);
      queue.push(next);
    }
  }
  const trail = [goal];
  while (trail[0] !== start) trail.unshift(previous.get(trail[0]!)!);
  return trail;
}

const noCycle: Rule.RuleModule = {
  meta: {
    type: 'problem',
    docs: { description: 'No cycle of run-time imports among the files of src/' },
    schema: rootSchema,
    messages: { cycle: 'import cycle: {{cycle}}' },
  },
  create(context) {
    const root = rootOf(context);
    const file = context.filename;
    const { graph, cycles } = cyclesOf(root);
    const component = cycles.get(file);
    if (!component) return {};
    const members = new Set(component);
    return onImports((node, specifier) => {
      const target = path.resolve(path.dirname(file), specifier);
      const kind = node as { importKind?: string; exportKind?: string };
      const erased =
        kind.importKind === 'type' || kind.exportKind === 'type' || node.type === 'ImportExpression';
      if (erased || !members.has(target)) return;
      const cycle = [file, ...pathWithin(graph, members, target, file)].map((f) => relative(root, f));
      context.report({ node, messageId: 'cycle', data: { cycle: cycle.join(' → ') } });
    });
  },
};

export const cofferPlugin: ESLint.Plugin = {
  meta: { name: 'coffer' },
  rules: { floors, 'no-cycle': noCycle },
};
