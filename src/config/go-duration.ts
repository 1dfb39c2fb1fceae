/**
 * Go-style durations for command-line flags (`90s`, `10m`, `1h30m`, `250ms`), the form
 * controller-runtime operators use, so flags read the same across operators.
 */

const unitMs: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;

/**
 * Parses a Go-style duration into milliseconds. A bare `0` is zero. Anything else must be one or
 * more `<number><unit>` parts with unit `ms`, `s`, `m` or `h`; returns undefined when malformed.
 */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (text === '') return undefined;
  part.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(text); match; match = part.exec(text)) {
    const [whole, amount, unit] = match;
    total += Number(amount) * (unitMs[unit ?? ''] ?? Number.NaN);
    consumed += whole.length;
  }
  return consumed === text.length && Number.isFinite(total) ? Math.round(total) : undefined;
}
