import type { FastifyRequest } from 'fastify';

// Link tokens travel in paths (/booking/<token>, /pay/<token>); search text (phones, emails, names),
// codes and tokens travel in query strings. A request line therefore logs the route pattern
// (`/booking/:token`), never the path, and the query's parameter names with every value masked.
const PATH_TOKENS = /\/(booking|pay|set-password)\/[^/?#]+/gi;

/** The query string with every value replaced by `[redacted]` (names kept, for debugging). */
function redactQuery(query: string): string {
  if (!query) return '';
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq === -1 ? pair : `${pair.slice(0, eq)}=[redacted]`;
    })
    .join('&');
}

/**
 * What a log line shows of a request URL: the matched route pattern, or for an unmatched path the
 * path with link tokens masked, plus the redacted query string.
 */
export function redactUrl(url: string, routePattern?: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : redactQuery(url.slice(q + 1));
  const shown = routePattern ?? path.replace(PATH_TOKENS, '/$1/[redacted]');
  return query ? `${shown}?${query}` : shown;
}

export const requestSerializer = (req: FastifyRequest) => ({
  method: req.method,
  url: redactUrl(req.url, req.routeOptions?.url),
  host: req.host,
  remoteAddress: req.ip,
});
