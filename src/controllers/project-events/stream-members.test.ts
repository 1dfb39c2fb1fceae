import { describe, expect, it } from 'vitest';
import { StreamMembers, type FolderMember } from './stream-members.ts';

interface TestMember extends FolderMember {
  readonly name: string;
}

const member = (name: string, environment: string, secretPath: string, recursive = false): TestMember => ({
  name,
  environment,
  secretPath,
  recursive,
});

const names = (members: Iterable<TestMember>) => [...members].map((m) => m.name).sort();

describe('StreamMembers', () => {
  it('offers a change only the members of its folder and the recursive ones', () => {
    const members = new StreamMembers<TestMember>();
    members.set('a', member('a', 'dev', '/app'));
    members.set('b', member('b', 'dev', '/app'));
    members.set('c', member('c', 'dev', '/other'));
    members.set('d', member('d', 'prod', '/app'));
    members.set('r', member('r', 'dev', '/', true));
    expect(names(members.candidates('dev', '/app'))).toEqual(['a', 'b', 'r']);
    expect(names(members.candidates('prod', '/app'))).toEqual(['d', 'r']);
    expect(names(members.candidates('dev', '/app/below'))).toEqual(['r']);
    expect(members.size).toBe(5);
  });

  it('moves a replaced member to its new folder and forgets a deleted one', () => {
    const members = new StreamMembers<TestMember>();
    members.set('a', member('a', 'dev', '/one'));
    members.set('b', member('b', 'dev', '/one'));
    members.set('a', member('a', 'dev', '/two'));
    expect(names(members.candidates('dev', '/one'))).toEqual(['b']);
    expect(names(members.candidates('dev', '/two'))).toEqual(['a']);
    members.delete('b');
    members.delete('b');
    expect(names(members.candidates('dev', '/one'))).toEqual([]);
    members.set('a', member('a', 'dev', '/two', true));
    expect(names(members.candidates('dev', '/two'))).toEqual(['a']);
    expect(names(members.candidates('dev', '/elsewhere'))).toEqual(['a']);
    members.delete('a');
    expect(members.size).toBe(0);
    expect(names(members.candidates('dev', '/two'))).toEqual([]);
  });

  it('keeps the other members of a folder when one of several goes', () => {
    const members = new StreamMembers<TestMember>();
    for (const name of ['a', 'b', 'c']) members.set(name, member(name, 'dev', '/f'));
    members.delete('b');
    expect(names(members.candidates('dev', '/f'))).toEqual(['a', 'c']);
    members.delete('a');
    expect(names(members.candidates('dev', '/f'))).toEqual(['c']);
    members.set('a', member('a', 'dev', '/f'));
    expect(names(members.candidates('dev', '/f'))).toEqual(['a', 'c']);
  });
});
