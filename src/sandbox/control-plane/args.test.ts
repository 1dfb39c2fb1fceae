import { describe, expect, it } from 'vitest';
import { apiServerArgs, nodeApiServerArgs } from './args.ts';

const flags = (extra: string[]) => apiServerArgs('/d', 1, 2, extra);
const named = (args: string[], name: string) => args.filter((flag) => flag.startsWith(`--${name}=`));

describe('apiServerArgs', () => {
  it('disables ServiceAccount admission by default (no controller creates default service accounts)', () => {
    expect(named(flags([]), 'disable-admission-plugins')).toEqual([
      '--disable-admission-plugins=ServiceAccount',
    ]);
    expect(named(flags(nodeApiServerArgs('/d', '10.244.0.1')), 'disable-admission-plugins')).toHaveLength(1);
  });

  it('enables it when the last --enable-admission-plugins names it, giving the list flags once', () => {
    const args = flags([
      ...nodeApiServerArgs('/d', '10.244.0.1'),
      '--enable-admission-plugins=NodeRestriction,ServiceAccount',
    ]);
    expect(named(args, 'disable-admission-plugins')).toEqual([]);
    expect(named(args, 'enable-admission-plugins')).toEqual([
      '--enable-admission-plugins=NodeRestriction,ServiceAccount',
    ]);
    expect(named(args, 'authorization-mode')).toEqual(['--authorization-mode=Node,RBAC']);
  });
});
