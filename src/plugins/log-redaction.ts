import type { FastifyRequest } from 'fastify';

// Link tokens travel in paths (/booking/<token>, /pay/<token>) and queries (?token=); codes never
// do. Everything that could authenticate someone is masked before a log line is written.
const PATH_TOKENS = /\/(booking|pay|set-password)\/[^/?#]+/g;
const QUERY_SECRETS = /([?&](?:token|code|session_token|api_key)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(PATH_TOKENS, '/$1/[redacted]').replace(QUERY_SECRETS, '$1[redacted]');
}

export const requestSerializer = (req: FastifyRequest) => ({
  method: req.method,
  url: redactUrl(req.url),
  host: req.host,
  remoteAddress: req.ip,
});
