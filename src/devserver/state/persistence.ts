/**
 * Optional persistence of the devserver state to one JSON file. Saves are debounced after
 * mutations and atomic (write a temporary file, then rename over the target), so a crash
 * leaves either the old or the new snapshot, never a torn one.
 */
import { readFile, rename, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Reads a snapshot; `undefined` when the file does not exist yet. */
export async function loadSnapshot(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read devserver data file ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`cannot parse devserver data file ${file}: ${(err as Error).message}`, { cause: err });
  }
}

/** Debounced, serialised, atomic writer of `snapshot()` to `file`. */
export class Persister {
  private readonly file: string;
  private readonly snapshot: () => unknown;
  private readonly debounceMs: number;
  private readonly onError: (err: unknown) => void;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;

  constructor(file: string, snapshot: () => unknown, debounceMs: number, onError: (err: unknown) => void) {
    this.file = file;
    this.snapshot = snapshot;
    this.debounceMs = debounceMs;
    this.onError = onError;
  }

  /** Marks the state changed; a save follows within the debounce delay. */
  schedule(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch(this.onError);
    }, this.debounceMs);
    this.timer.unref();
  }

  /** Writes now if anything changed, waiting for a write already in progress first. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.writing) await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    this.writing = this.write().finally(() => {
      this.writing = undefined;
    });
    await this.writing;
  }

  private async write(): Promise<void> {
    const text = JSON.stringify(this.snapshot());
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      await mkdir(dirname(this.file), { recursive: true });
      await writeFile(tmp, text, { mode: 0o600 });
      await rename(tmp, this.file);
    } catch (err) {
      this.dirty = true;
      throw new Error(`cannot write devserver data file ${this.file}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
}
