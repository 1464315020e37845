import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';

// The HTML pages a person opens (src/surfaces/pages/): decisions.md "HTML pages".
// Nothing loads from elsewhere, nothing may frame them, and a token in their URL never leaves in a
// Referer. Their styles are inline <style> blocks (values in them are escaped or pattern-checked);
// a page with a script names it by hash (pageHelmet({ scripts })).
const PAGE_DIRECTIVES = {
  defaultSrc: ["'none'"],
  styleSrc: ["'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  formAction: ["'self'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
};

/** The route option `helmet` of an HTML page; `scripts` are the CSP hashes of its inline scripts. */
export function pageHelmet(
  o: { scripts?: string[]; connectSelf?: boolean; connect?: string[]; frames?: string[]; forms?: string[]; images?: string[] } = {},
) {
  const connect = [...(o.connectSelf ? ["'self'"] : []), ...(o.connect ?? [])];
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        ...PAGE_DIRECTIVES,
        ...(o.scripts?.length ? { scriptSrc: o.scripts } : {}),
        ...(connect.length ? { connectSrc: connect } : {}),
        ...(o.frames?.length ? { frameSrc: o.frames } : {}),
        ...(o.forms?.length ? { formAction: ["'self'", ...o.forms] } : {}),
        ...(o.images?.length ? { imgSrc: ["'self'", 'data:', ...o.images] } : {}),
      },
    },
    referrerPolicy: { policy: 'no-referrer' as const },
    frameguard: { action: 'deny' as const },
  };
}

/**
 * @fastify/helmet for the routes that ask for it (route option `helmet: pageHelmet()`); JSON routes
 * only get `X-Content-Type-Options: nosniff` (app.ts). The docs explorers set their own (docs.ts).
 */
export async function registerPageHeaders(app: FastifyInstance) {
  await app.register(helmet, { global: false, ...pageHelmet() } as FastifyHelmetOptions);
}

/**
 * The route hook of a page reached by a token: no copy kept by a browser or proxy, error answers
 * included (set before the handler runs, so a thrown 404 carries it too).
 */
export const noStore = async (_request: FastifyRequest, reply: FastifyReply) => {
  reply.header('cache-control', 'no-store');
};

/** The headers every docs page and asset gets besides its own CSP (swagger-ui sets that one). */
export const DOCS_HEADERS = {
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};
