/**
 * The outcome of each WorkloadSecret's last render, so a delivery whose templates and merged
 * source keys are unchanged (a resync, a source event that changed nothing the templates see, a
 * status write) renders nothing — a known failure included: a template that met a limit is not
 * run again until its spec or its sources change.
 *
 * One entry per resource (`owner`, namespace/name), keyed by a digest of the templates and the
 * merged data. Failures are small (one message) and always kept; rendered output is kept up to
 * `limitChars` characters over all resources, the least recently used dropped first (it then
 * renders again when next needed). `forget` drops a deleted resource's entry.
 */
import { createHash } from 'node:crypto';
import type { RenderOutcome } from './outcome.ts';

interface Entry {
  readonly digest: string;
  readonly outcome: RenderOutcome;
  readonly chars: number;
}

/** The digest of a render's input: its templates (in order) and the merged data. */
export function renderDigest(
  templates: readonly (readonly [string, string])[],
  data: Readonly<Record<string, string>>,
): string {
  return createHash('sha256')
    .update(JSON.stringify([templates, Object.entries(data)]))
    .digest('base64url');
}

function sizeOf(outcome: RenderOutcome): number {
  if (!outcome.ok) return 0;
  let chars = 0;
  for (const [key, value] of Object.entries(outcome.data)) chars += key.length + value.length;
  return chars;
}

export class RenderMemo {
  private readonly entries = new Map<string, Entry>();
  private readonly limitChars: number;
  private chars = 0;

  constructor(limitChars: number) {
    this.limitChars = limitChars;
  }

  /** The outcome `owner`'s last render had for `digest`, if it is the one remembered. */
  get(owner: string, digest: string): RenderOutcome | undefined {
    const entry = this.entries.get(owner);
    if (!entry || entry.digest !== digest) return undefined;
    this.entries.delete(owner);
    this.entries.set(owner, entry);
    return entry.outcome;
  }

  /** Remembers `outcome` as `owner`'s render of `digest` (replacing what it had). */
  set(owner: string, digest: string, outcome: RenderOutcome): void {
    this.forget(owner);
    const chars = sizeOf(outcome);
    if (chars > this.limitChars) return;
    this.entries.set(owner, { digest, outcome, chars });
    this.chars += chars;
    for (const [other, entry] of this.entries) {
      if (this.chars <= this.limitChars) break;
      if (entry.chars === 0) continue;
      this.entries.delete(other);
      this.chars -= entry.chars;
    }
  }

  /** Drops `owner`'s entry. */
  forget(owner: string): void {
    const entry = this.entries.get(owner);
    if (!entry) return;
    this.entries.delete(owner);
    this.chars -= entry.chars;
  }

  /** Characters of rendered output held (tests). */
  get heldChars(): number {
    return this.chars;
  }

  /** Resources with an entry (tests). */
  get size(): number {
    return this.entries.size;
  }
}
