/**
 * A small GNU-style flag reader: `--name=value`, `--name value`, and stand-alone boolean flags
 * (`--leader-elect` means true). It only splits arguments; values are validated by the caller's
 * schema. Unknown flags, positional arguments, repeated flags and missing values are errors.
 */

/** One accepted flag. */
export interface FlagSpec {
  readonly name: string;
  /** A boolean flag may appear without a value. */
  readonly boolean?: boolean;
  readonly help: string;
}

/** Splits `argv` into `{ flagName: rawValue }`; throws an `Error` describing the first problem. */
export function parseArgs(argv: readonly string[], specs: readonly FlagSpec[]): Record<string, string> {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}" (flags start with --)`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = byName.get(name);
    if (!spec) throw new Error(`unknown flag --${name}`);
    if (name in out) throw new Error(`flag --${name} given more than once`);
    if (eq >= 0) {
      out[name] = arg.slice(eq + 1);
    } else if (spec.boolean) {
      out[name] = 'true';
    } else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new Error(`flag --${name} needs a value`);
      out[name] = next;
      i++;
    }
  }
  return out;
}
