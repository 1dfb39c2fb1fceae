/**
 * The static import graph of the TypeScript sources under `<root>/src`, for the cycle check
 * (`plugin.ts`). An edge is a static relative `import … from` / `export … from` that loads the
 * module at run time: `import type` / `export type` declarations are erased and make no edge
 * (`import { type A }` still loads its module, so it does). Dynamic `import()` is left out too.
 * Test files (`*.test.ts`) are not part of the graph: nothing imports them.
 *
 * The graph is read from disk once per root and process (one ESLint run) and reused for every
 * file linted in it.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** File (absolute path) → the files it imports (absolute paths). */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

function isTypeOnly(statement: ts.Statement): boolean {
  if (ts.isImportDeclaration(statement)) return statement.importClause?.isTypeOnly ?? false;
  return ts.isExportDeclaration(statement) && statement.isTypeOnly;
}

/** The relative specifiers of the static imports and re-exports in `text` that load a module. */
export function staticImports(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    const specifier =
      ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)
        ? statement.moduleSpecifier
        : undefined;
    if (!specifier || !ts.isStringLiteral(specifier) || isTypeOnly(statement)) continue;
    if (specifier.text.startsWith('.')) specifiers.push(specifier.text);
  }
  return specifiers;
}

/** Reads the graph of `<root>/src` from disk. */
export function readImportGraph(root: string): ImportGraph {
  const graph = new Map<string, string[]>();
  const srcDir = path.join(root, 'src');
  if (!fs.existsSync(srcDir)) return graph;
  for (const file of sourceFiles(srcDir)) {
    const targets = staticImports(file, fs.readFileSync(file, 'utf8')).map((s) =>
      path.resolve(path.dirname(file), s),
    );
    graph.set(file, targets);
  }
  return graph;
}

/**
 * The strongly connected components with more than one file (or a file importing itself): every
 * file on an import cycle, mapped to its component. Tarjan's algorithm, iterative.
 */
export function cyclicComponents(graph: ImportGraph): Map<string, readonly string[]> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const result = new Map<string, readonly string[]>();
  const enter = (node: string): { node: string; next: number } => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    return { node, next: 0 };
  };
  const closeComponent = (root: string): void => {
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== root);
    component.sort();
    const selfLoop = (graph.get(root) ?? []).includes(root);
    if (component.length > 1 || selfLoop) for (const file of component) result.set(file, component);
  };
  const visit = (start: string): void => {
    const work = [enter(start)];
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = (graph.get(frame.node) ?? []).filter((t) => graph.has(t));
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!;
        if (!index.has(target)) work.push(enter(target));
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) closeComponent(frame.node);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return result;
}
