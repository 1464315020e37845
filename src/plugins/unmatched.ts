// A request that matches no route is answered in onRequest, before its body is read or parsed and
// before any authentication hook (issue 30 §2: unmatched paths stay cheap): 405 with `Allow` when
// the path exists with other methods (issue 30 §5, both surfaces, both partner mounts), otherwise
// 404, each in its surface's shape (unmatchedAnswer).
import type { FastifyInstance } from 'fastify';
import { unmatchedAnswer } from './error-handlers.js';

/** A route URL pattern (`/customers/:customerId/notes`, `/docs/*`) as a regex over concrete paths. */
export function patternRegex(url: string): RegExp {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      // `:name`, `:name(regex)`, several in one segment (`:from-:to`): each one segment's characters.
      const parts = segment.split(/:[A-Za-z0-9_]+(?:\([^)]*\))?/);
      return parts.map(escape).join('[^/]+');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

export function registerUnmatched(app: FastifyInstance) {
  let table: { re: RegExp; methods: Set<string> }[] | undefined;
  const build = () => {
    const byUrl = new Map<string, Set<string>>();
    for (const r of app.routeTable) {
      const set = byUrl.get(r.url) ?? new Set<string>();
      set.add(r.method);
      if (r.method === 'GET') set.add('HEAD');
      byUrl.set(r.url, set);
    }
    return [...byUrl].map(([url, methods]) => ({ re: patternRegex(url), methods }));
  };

  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    table ??= build();
    const path = request.url.split('?')[0]!;
    const allow = new Set<string>();
    for (const { re, methods } of table) if (re.test(path)) for (const m of methods) allow.add(m);
    // The method exists there but a parameter's own pattern refused the path: a plain 404.
    return unmatchedAnswer(request, reply, allow.has(request.method) ? [] : [...allow].sort());
  });
}
