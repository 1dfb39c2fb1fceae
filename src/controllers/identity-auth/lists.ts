/**
 * Semantic comparison of the values the service stores in another shape than the spec holds
 * them, so that a poll never sees drift where there is none:
 *
 * - lists the service keeps as one comma-separated string (`"a, b"`), compared as sets;
 * - claim maps whose values are such comma lists;
 * - trusted IPs, which the service returns parsed (`{ipAddress, type, prefix}`), compared with
 *   the spec's `10.0.0.0/8` strings.
 */

/** `"a, b ,c"` → `['a', 'b', 'c']` (blank entries dropped). */
export function splitList(value: string | null | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

/** A spec list as the service's comma string (`""` for none). */
export function joinList(list: readonly string[] | undefined): string {
  return (list ?? []).map((entry) => entry.trim()).join(', ');
}

function sortedKey(list: readonly string[]): string {
  return JSON.stringify([...list].sort());
}

/** True when the spec list and the service's comma string hold the same entries. */
export function sameList(spec: readonly string[] | undefined, service: string | null | undefined): boolean {
  return sortedKey(splitList(joinList(spec))) === sortedKey(splitList(service));
}

/** True when two claim maps match, each value compared as a comma list. */
export function sameClaims(
  spec: Readonly<Record<string, string>> | undefined,
  service: Readonly<Record<string, unknown>> | null | undefined,
): boolean {
  const left = Object.entries(spec ?? {});
  const right = Object.entries(service ?? {});
  if (left.length !== right.length) return false;
  return left.every(([key, value]) => {
    const other = service?.[key];
    return typeof other === 'string' && sortedKey(splitList(value)) === sortedKey(splitList(other));
  });
}

/** A trusted IP as the service returns it. */
export interface ParsedIp {
  readonly ipAddress: string;
  readonly prefix?: number | null;
}

/**
 * `10.0.0.0/8` and `{ipAddress: '10.0.0.0', prefix: 8}` both become `10.0.0.0/8`; a single
 * address is its full-length range (whether or not the service reports a prefix for it).
 */
function ipKey(ip: ParsedIp): string {
  const address = ip.ipAddress.trim().toLowerCase();
  const prefix = ip.prefix ?? (address.includes(':') ? 128 : 32);
  return `${address}/${prefix}`;
}

function parseSpecIp(text: string): ParsedIp {
  const [address = '', prefix] = text.trim().split('/');
  return prefix === undefined ? { ipAddress: address } : { ipAddress: address, prefix: Number(prefix) };
}

/** True when the spec's trusted IPs and the service's parsed ones are the same set. */
export function sameTrustedIps(spec: readonly string[], service: readonly ParsedIp[]): boolean {
  return sortedKey(spec.map((ip) => ipKey(parseSpecIp(ip)))) === sortedKey(service.map(ipKey));
}

/** The request form of trusted IPs. */
export function trustedIps(spec: readonly string[]): { ipAddress: string }[] {
  return spec.map((ipAddress) => ({ ipAddress }));
}
