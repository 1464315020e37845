import type { FastifyServerOptions } from 'fastify';
import { requestSerializer } from '../plugins/log-redaction.js';
import { logContextMixin } from './log-context.js';

// Secrets never reach a log line, whatever logs the request.
const REDACT = [
  'req.headers["x-api-key"]',
  'req.headers["x-webhook-secret"]',
  'req.headers["x-verified-session"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.current_password',
  '*.new_password',
  '*.code',
  '*.token',
];

/**
 * The server's pino options: secrets redacted, the request logged by its route pattern with its
 * query values masked (requestSerializer), and the request or job a line belongs to added to it
 * (logContextMixin). Also measured alone by bench/hooks.ts.
 */
export function loggerOptions(level: string, stream?: NodeJS.WritableStream) {
  return {
    level,
    redact: { paths: REDACT, censor: '[redacted]' },
    serializers: { req: requestSerializer },
    mixin: logContextMixin,
    ...(stream ? { stream } : {}),
  } satisfies FastifyServerOptions['logger'];
}
