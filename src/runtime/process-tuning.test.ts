import { describe, expect, it } from 'vitest';
import { glibcTunables, nodeFlags, tuningEnv } from './process-tuning.ts';

describe('tuningEnv', () => {
  it('spells the V8 flags as NODE_OPTIONS and the malloc tunables as GLIBC_TUNABLES take them', () => {
    const env = tuningEnv();
    expect(env.NODE_OPTIONS.split(' ')).toEqual(Object.entries(nodeFlags).map(([f, v]) => `${f}=${v}`));
    expect(env.GLIBC_TUNABLES.split(':')).toEqual(Object.entries(glibcTunables).map(([t, v]) => `${t}=${v}`));
    for (const flag of env.NODE_OPTIONS.split(' ')) expect(flag).toMatch(/^--[a-z-]+=\d+$/);
    for (const tunable of env.GLIBC_TUNABLES.split(':'))
      expect(tunable).toMatch(/^glibc\.malloc\.[a-z_]+=\d+$/);
  });
});
