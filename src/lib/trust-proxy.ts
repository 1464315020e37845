// TRUST_PROXY: whom the server believes about the client address in X-Forwarded-For (docs/decisions.md,
// "Client address behind a proxy").
import { isIP } from 'node:net';
import { z } from 'zod';

/** false: nobody; a hop count; the proxies' addresses, CIDRs or range names; true (refused in production). */
export type TrustProxySetting = false | true | number | string[];

/** proxy-addr's names for address ranges (what Fastify compiles an address list with). */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An address, a CIDR (`10.0.0.0/8`, `fd00::/8`) or one of proxy-addr's range names. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: whom to believe about the client address in X-Forwarded-For. `false` (or 0): nobody;
 * a hop count N (1-10): the N nearest hops; otherwise a comma-separated list of the proxies'
 * addresses or CIDRs. `true` (every hop, whatever a client wrote first) is refused in production
 * and read as one hop elsewhere (see trustProxyOption).
 */
export function parseTrustProxy(raw: string, ctx: z.RefinementCtx): TrustProxySetting {
  const v = raw.trim().toLowerCase();
  if (['false', 'no', '0'].includes(v)) return false;
  if (['true', 'yes'].includes(v)) return true;
  if (/^\d+$/.test(v)) {
    if (Number(v) <= 10) return Number(v);
    ctx.addIssue({ code: 'custom', message: 'a hop count is at most 10' });
    return z.NEVER;
  }
  const entries = raw.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !isProxyAddress(e));
  if (bad.length) {
    ctx.addIssue({
      code: 'custom',
      message: `not an address or CIDR: ${bad.map((b) => JSON.stringify(b)).join(', ')} (expected e.g. 127.0.0.1,10.0.0.0/8, or a hop count)`,
    });
    return z.NEVER;
  }
  return entries;
}

/**
 * Fastify's trustProxy for the setting. A hop count becomes a function: Fastify 5.12 trusts no hop
 * at all for a number (a client reaching the server directly could otherwise write the hops itself),
 * so a hop count is only as safe as the rule that nothing but the proxies reaches the server.
 */
export function trustProxyOption(setting: TrustProxySetting): false | string[] | ((address: string, hop: number) => boolean) {
  if (setting === false) return false;
  if (Array.isArray(setting)) return setting;
  const hops = setting === true ? 1 : setting;
  return (_address, hop) => hop < hops;
}
