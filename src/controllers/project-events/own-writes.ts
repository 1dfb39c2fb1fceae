/**
 * The operator's own writes, announced before they are sent, so that their echo on the project
 * event stream does not wake the writer to read its folder again.
 *
 * Events carry no value, version or author (facts §A22), so an echo is recognised by what the
 * writer already knows: the stream that was open when it wrote, the folder and the keys it
 * wrote. Each expected key is consumed by the first change that names it; a change naming any
 * other key of the folder, a second change to a key already consumed, a change after the stream
 * reopened, or one after `ttlMs` is not an echo and wakes the resource as before. A foreign change
 * racing the write can at worst be taken for the echo while the echo itself then wakes the
 * resource, so a foreign change is never lost, only (rarely) noticed one event later.
 */
import type { SecretChange } from '../../client/index.ts';

/** One announced write: the stream open at the time (`epoch`) and the keys still expected. */
interface Expected {
  readonly epoch: number;
  readonly environment: string;
  readonly secretPath: string;
  readonly keys: Set<string>;
  readonly until: number;
}

/** Expected echoes by resource (request key). */
export class OwnWrites {
  private readonly expected = new Map<string, Expected>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(ttlMs: number, now: () => number = Date.now) {
    this.ttlMs = ttlMs;
    this.now = now;
  }

  /** Records that resource `member` is about to write `keys` of a folder while stream `epoch` is open. */
  expect(member: string, epoch: number, write: SecretChange): void {
    const keys = new Set(this.alive(member, epoch)?.keys);
    for (const key of write.secretKeys) keys.add(key);
    this.expected.set(member, {
      epoch,
      environment: write.environment,
      secretPath: write.secretPath,
      keys,
      until: this.now() + this.ttlMs,
    });
  }

  /** Forgets what `member` expected (its write failed, it read its folder again, or it is gone). */
  forget(member: string): void {
    this.expected.delete(member);
  }

  /**
   * Whether every change in `changes` that concerns `member` is the echo of its own write on
   * stream `epoch`; the keys they name are consumed. False (nothing consumed) otherwise.
   */
  consume(member: string, epoch: number, changes: readonly SecretChange[]): boolean {
    const expected = this.alive(member, epoch);
    if (!expected) return false;
    const echoes = changes.filter(
      (c) => c.environment === expected.environment && c.secretPath === expected.secretPath,
    );
    const keys = echoes.flatMap((c) => c.secretKeys);
    if (keys.length === 0 || echoes.length < changes.length) return false;
    if (!keys.every((key) => expected.keys.has(key)) || new Set(keys).size < keys.length) return false;
    for (const key of keys) expected.keys.delete(key);
    if (expected.keys.size === 0) this.expected.delete(member);
    return true;
  }

  /** Number of resources with an expected echo (for tests and memory accounting). */
  get size(): number {
    return this.expected.size;
  }

  private alive(member: string, epoch: number): Expected | undefined {
    const expected = this.expected.get(member);
    if (!expected) return undefined;
    if (expected.epoch === epoch && expected.until > this.now()) return expected;
    this.expected.delete(member);
    return undefined;
  }
}
