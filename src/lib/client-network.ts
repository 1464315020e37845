import { isIPv6 } from 'node:net';

/**
 * What one client controls, for per-IP counting: an IPv4 address, or an IPv6 /64 (a single host is
 * routinely given a whole /64, so counting per IPv6 address would hand it 2^64 fresh budgets;
 * @fastify/rate-limit's own default key groups the same way).
 */
export function clientNetwork(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped) return mapped;
  const [bare = ''] = ip.toLowerCase().split('%');
  const groups = (part: string) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const [head = '', tail] = bare.split('::');
  const h = groups(head);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - groups(tail).length).fill('0'), ...groups(tail)];
  return `${all
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
