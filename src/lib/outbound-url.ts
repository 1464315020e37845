import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Addresses a production server never sends a webhook or redirects a shopper to: its own machine,
// the private network behind it, link-local (cloud metadata at 169.254.169.254), and ranges that
// are not unicast on the internet. A URL pointing there is how a provider setting would reach
// inside the network (SSRF).
const INTERNAL = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  INTERNAL.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  INTERNAL.addSubnet(net, bits, 'ipv6');
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 one. */
function normalise(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return { address: mapped, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export function isInternalAddress(address: string): boolean {
  const a = normalise(address);
  return INTERNAL.check(a.address, a.family);
}

function isLoopbackAddress(address: string): boolean {
  const a = normalise(address);
  return LOOPBACK.check(a.address, a.family);
}

export type Resolve = (host: string) => Promise<string[]>;
const resolveAll: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

const hostOf = (u: URL) => u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** Whether a URL's host is this machine: localhost names or a loopback address (no lookup). */
export function isLoopbackUrl(url: URL): boolean {
  const host = hostOf(url);
  return isLocalhostName(host) || (isIP(host) !== 0 && isLoopbackAddress(host));
}

/**
 * Whether a webhook or checkout URL may be used; the reason when not (null: fine).
 * Production: https only, and the host (an address, or every address its name resolves to) never
 * private, loopback, link-local or otherwise internal. Elsewhere: https anywhere, http only on
 * loopback (a receiver on the developer's machine). Never credentials in the URL.
 */
export async function checkOutboundUrl(url: string, o: { production: boolean; resolve?: Resolve }): Promise<string | null> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'must be http:// or https://';
  if (!u.hostname) return 'needs a host';
  if (u.username || u.password) return 'must not carry credentials (the signature authenticates the sender)';
  const host = hostOf(u);
  if (!o.production) {
    if (u.protocol === 'http:' && !(isLocalhostName(host) || (isIP(host) && isLoopbackAddress(host)))) {
      return 'must be https:// (http:// only on loopback: localhost, 127.0.0.1, [::1])';
    }
    return null;
  }
  if (u.protocol !== 'https:') return 'must be https:// in production';
  if (isLocalhostName(host)) return 'must not point at this machine (loopback) in production';
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (o.resolve ?? resolveAll)(host);
    } catch {
      return `host ${host} does not resolve`;
    }
  }
  const internal = addresses.find(isInternalAddress);
  if (internal) return `must not point at a private, loopback or link-local address in production (${host} is ${internal})`;
  return null;
}
