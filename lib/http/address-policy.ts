/**
 * @module http/address-policy — keeps calls to third parties away from private, loopback and
 * link-local addresses (cloud metadata, the platform's own services) unless the host is allow-listed.
 *
 * The check runs on the resolved address, inside the connection's own DNS lookup, so the socket
 * connects to exactly the address that was checked: a name that rebinds to 127.0.0.1 between a check
 * and the connect cannot slip through.
 */
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { AddressNotAllowed, InvalidUrl, NetworkError } from './errors.js';

/** Lower-cases, drops IPv6 brackets and a trailing dot, and writes IPv6 literals in canonical form. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (net.isIPv6(h)) {
    try {
      h = new URL(`http://[${h}]/`).hostname.slice(1, -1);
    } catch {}
  }
  return h;
}

export function isHostAllowListed(host: string, allowedPrivateHosts: readonly string[]): boolean {
  const h = normalizeHost(host);
  return allowedPrivateHosts.some((a) => normalizeHost(a) === h);
}

function parseIPv4(ip: string): number[] {
  return ip.split('.').map(Number);
}

function parseIPv6(ip: string): number[] {
  let text = ip.split('%')[0]!;
  if (text.includes('.')) {
    const at = text.lastIndexOf(':') + 1;
    const [a, b, c, d] = parseIPv4(text.slice(at));
    text = `${text.slice(0, at)}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const groups = (s: string) => (s ? s.split(':') : []).map((g) => parseInt(g, 16));
  const gap = text.indexOf('::');
  const words =
    gap === -1
      ? groups(text)
      : (() => {
          const left = groups(text.slice(0, gap));
          const right = groups(text.slice(gap + 2));
          return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
        })();
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

function inV4(b: number[], base: [number, number, number, number], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit++) {
    const i = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((b[i]! & mask) !== (base[i]! & mask)) return false;
  }
  return true;
}

const V4_BLOCKED: [[number, number, number, number], number][] = [
  [[0, 0, 0, 0], 8], // "this network", incl. 0.0.0.0 (reaches localhost on Linux)
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10],
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16], // link-local, incl. the cloud metadata service 169.254.169.254
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15], // benchmarking, often routed to internal test networks
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, incl. broadcast
];

function isBlockedV4(b: number[]): boolean {
  return V4_BLOCKED.some(([base, prefix]) => inV4(b, base, prefix));
}

/** True for an address a third-party call must not reach: private, loopback, link-local, unspecified and the like. */
export function isPrivateAddress(ip: string): boolean {
  const kind = net.isIP(ip.split('%')[0]!);
  if (kind === 4) return isBlockedV4(parseIPv4(ip));
  if (kind !== 6) return true; // not an address at all: refuse rather than guess
  const b = parseIPv6(ip);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach the embedded IPv4 address.
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return isBlockedV4(b.slice(12));
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return isBlockedV4(b.slice(12));
  if (zeros(0, 12)) return true; // ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d
  if (b[0] === 0x20 && b[1] === 0x02) return true; // 2002::/16 6to4: relays reach whatever IPv4 address it wraps
  if ((b[0]! & 0xfe) === 0xfc) return true; // fc00::/7 unique local
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return true; // fe80::/10 link-local
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return true; // fec0::/10 old site-local
  if (b[0] === 0xff) return true; // multicast
  return false;
}

/** Throws AddressNotAllowed when `address` (what `host` resolved to) is private and `host` is not allow-listed. */
export function assertAddressAllowed(host: string, address: string, allowedPrivateHosts: readonly string[]): void {
  if (isPrivateAddress(address) && !isHostAllowListed(host, allowedPrivateHosts)) throw new AddressNotAllowed(normalizeHost(host), address);
}

/**
 * For a host that is an IP literal, checks it now: Node connects to literals without a lookup, so
 * the pinned lookup never sees them. Names are left to the lookup.
 */
export function assertLiteralHostAllowed(host: string, allowedPrivateHosts: readonly string[]): void {
  const h = normalizeHost(host);
  if (net.isIP(h)) assertAddressAllowed(h, h, allowedPrivateHosts);
}

export type Resolver = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, options, callback) => dns.lookup(hostname, options, callback);

/**
 * A `lookup` for net/tls.connect (undici `connect: { lookup }`) that resolves, refuses the whole
 * answer when any address is disallowed, and hands the checked addresses to the socket.
 */
export function createPinnedLookup(allowedPrivateHosts: readonly string[], resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', undefined);
      try {
        if (addresses.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        for (const a of addresses) assertAddressAllowed(hostname, a.address, allowedPrivateHosts);
      } catch (e) {
        return callback(e as NodeJS.ErrnoException, '', undefined);
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

function resolveAll(hostname: string, resolve: Resolver): Promise<LookupAddress[]> {
  return new Promise((ok, fail) => resolve(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? fail(err) : ok(addresses))));
}

/**
 * Validates a user-supplied URL (webhook URL, a customer's own API domain) when it is saved: http(s)
 * only, and not resolving to a disallowed address. Calls made later are checked again at connect time.
 */
export async function assertUrlAllowed(url: string | URL, allowedPrivateHosts: readonly string[], resolve: Resolver = systemResolver): Promise<void> {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    throw new InvalidUrl('not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InvalidUrl(`the URL scheme must be http or https, not ${parsed.protocol.slice(0, -1)}`);
  const host = normalizeHost(parsed.hostname);
  if (!host) throw new InvalidUrl('the URL has no host');
  if (isHostAllowListed(host, allowedPrivateHosts)) return;
  if (net.isIP(host)) return assertAddressAllowed(host, host, allowedPrivateHosts);
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host, resolve);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'ENOTFOUND';
    throw new NetworkError(code, `cannot resolve ${host}: ${code}`, { cause: err });
  }
  if (addresses.length === 0) throw new NetworkError('ENOTFOUND', `cannot resolve ${host}`);
  for (const a of addresses) assertAddressAllowed(host, a.address, allowedPrivateHosts);
}
