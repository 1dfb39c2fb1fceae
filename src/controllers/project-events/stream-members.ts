/**
 * The members of one project event stream, indexed by folder so that an event looks only at the
 * resources of the folder it changed.
 *
 * A stream serves every resource of one (connection, project): a thousand SecretBatches of one
 * project share it, and each own write comes back as an event. Matching each event against every
 * member of the stream made converging N batches of one project cost N² matches; with the index an event
 * costs the members of its folder, plus the recursive members (which may watch any folder above
 * it, so they are always candidates).
 *
 * Contract: `candidates(environment, path)` yields every member that a change of that folder can
 * concern — each non-recursive member whose environment and folder are those, then every
 * recursive member — and possibly more (callers still check each); a lone member of a folder is
 * held without an array.
 */

/** What the index reads of a member. */
export interface FolderMember {
  readonly environment: string;
  readonly secretPath: string;
  /** Changes below `secretPath` concern it too. */
  readonly recursive: boolean;
}

function folderKey(member: FolderMember): string {
  return `${member.environment}\n${member.secretPath}`;
}

export class StreamMembers<M extends FolderMember> {
  private readonly all = new Map<string, M>();
  /** Non-recursive members by `environment \n secretPath`: one member, or an array of several. */
  private readonly byFolder = new Map<string, M | M[]>();
  private readonly recursive = new Map<string, M>();

  get size(): number {
    return this.all.size;
  }

  get(key: string): M | undefined {
    return this.all.get(key);
  }

  values(): IterableIterator<M> {
    return this.all.values();
  }

  /** Adds the member under `key`, replacing the one it held. */
  set(key: string, member: M): void {
    this.delete(key);
    this.all.set(key, member);
    if (member.recursive) {
      this.recursive.set(key, member);
      return;
    }
    const folder = folderKey(member);
    const held = this.byFolder.get(folder);
    if (held === undefined) this.byFolder.set(folder, member);
    else if (Array.isArray(held)) held.push(member);
    else this.byFolder.set(folder, [held, member]);
  }

  /** Removes the member under `key` (nothing when there is none). */
  delete(key: string): void {
    const member = this.all.get(key);
    if (member === undefined) return;
    this.all.delete(key);
    if (member.recursive) {
      this.recursive.delete(key);
      return;
    }
    const folder = folderKey(member);
    const held = this.byFolder.get(folder);
    if (held === member || held === undefined) {
      this.byFolder.delete(folder);
      return;
    }
    if (!Array.isArray(held)) return;
    const left = held.filter((m) => m !== member);
    this.byFolder.set(folder, left.length === 1 ? (left[0] as M) : left);
  }

  /** The members a change of `secretPath` in `environment` may concern (see the contract). */
  *candidates(environment: string, secretPath: string): Generator<M> {
    const held = this.byFolder.get(`${environment}\n${secretPath}`);
    if (Array.isArray(held)) yield* held;
    else if (held !== undefined) yield held;
    yield* this.recursive.values();
  }
}
