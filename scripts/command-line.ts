/**
 * Command-line handling shared by the scripts under scripts/: `--help` / `-h` prints the script's
 * usage and exits 0; a flag parseArgs rejects prints the reason and the usage and exits 2 — never
 * a stack trace.
 */

/** Prints `usage` and exits 0 when the arguments ask for help. */
export function exitOnHelp(usage: string, args: readonly string[] = process.argv.slice(2)): void {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage);
    process.exit(0);
  }
}

/**
 * {@link exitOnHelp}, then `parse()` (typically `parseArgs`); returns what it returns. When it
 * throws, prints the message and `usage` to stderr and exits 2.
 */
export function parseCommandLine<T>(usage: string, parse: () => T): T {
  exitOnHelp(usage);
  try {
    return parse();
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
}
