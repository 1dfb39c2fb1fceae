import { describe, expect, it } from 'vitest';
import { expandFolder, type FolderValues } from './secret-references.ts';

const folders: Record<string, Record<string, string>> = {
  'dev:/': { A: 'a', REF: '${A}-${dev.app.B}', LOOP1: '${LOOP2}', LOOP2: '${LOOP1}' },
  'dev:/app': { B: 'b-${C}', C: 'c' },
  'prod:/': { P: 'p' },
};
const lookup: FolderValues = (environment, path) => {
  const folder = folders[`${environment}:${path}`];
  return folder ? new Map(Object.entries(folder)) : undefined;
};

describe('expandFolder', () => {
  const expand = (own: Record<string, string>) =>
    Object.fromEntries(expandFolder(new Map(Object.entries(own)), { environment: 'dev', path: '/' }, lookup));

  it('expands local and other-folder references, nested ones too', () => {
    expect(expand({ X: '${REF}/${prod.P}' })).toEqual({ X: 'a-b-c/p' });
  });

  it('leaves references to nothing, and cross-project ones, as written', () => {
    expect(expand({ X: '${NOPE}|${prod.app.P}|${staging.P}|${@other.dev.A}' })).toEqual({
      X: '${NOPE}|${prod.app.P}|${staging.P}|${@other.dev.A}',
    });
  });

  it('does not follow a cycle', () => {
    expect(expand({ LOOP1: '${LOOP2}' }).LOOP1).toMatch(/^\$\{LOOP[12]\}$/);
  });
});
