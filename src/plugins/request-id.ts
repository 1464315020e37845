import type { RawRequestDefaultExpression } from 'fastify';
import { randomToken } from '../lib/ids.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Reuses a caller's (or load balancer's) x-request-id when it is safe to echo, else makes one. */
export function genReqId(req: RawRequestDefaultExpression): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && SAFE_ID.test(incoming)) return incoming;
  return `req_${randomToken(12)}`;
}
