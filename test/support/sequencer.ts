/**
 * The order in which the test files start. The file that starts a node (the chart on the node,
 * which waits for the kubelet to rotate a projected token after 80% of its 600 s) is the longest,
 * so it starts first and holds one slot while the others share the rest; the chaos files, which
 * time rates and takeovers, run after the ordinary files, when the machine is quieter. Within each
 * rank vitest's own order holds.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

function rank(file: string): number {
  if (file.endsWith('/e2e-chart-node.test.ts')) return 0;
  if (/\/chaos-[^/]*\.test\.ts$/.test(file)) return 2;
  return 1;
}

export class NodeChainSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((file, index) => ({ file, index, rank: rank(file.moduleId) }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map(({ file }) => file);
  }
}
