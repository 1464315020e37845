// What POST /agent/mcp refuses before the MCP SDK sees a message (issue 30 §2, §6):
// - a JSON-RPC batch: the current MCP revision (2025-06-18) has none, and a batch of 100 messages
//   would count once against the limits that every single call counts against;
// - an Origin the deployment did not allow (the transport rules: a browser page on another site,
//   or a DNS-rebinding page, must not drive the tools); a client without Origin (an agent's SDK,
//   curl) is not a browser and passes;
// - an answer larger than MAX_ANSWER_BYTES (every tool answer is bounded by its route's limits; this
//   is the backstop, so no single POST can make the server serialize an unbounded body).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

/** The largest request body a tool call needs: create_ticket's, as POST /agent/tickets takes it (a 100,000-character transcript). */
export const MCP_BODY_LIMIT = 512 * 1024;
/** The largest JSON-RPC answer sent; a larger one is replaced by a JSON-RPC error. */
export const MAX_ANSWER_BYTES = 512 * 1024;

function rpcError(reply: FastifyReply, status: number, code: number, message: string, id: unknown = null) {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

/** The parsed origins of MCP_ALLOWED_ORIGINS (scheme://host[:port], lower case, no path). */
export function parseAllowedOrigins(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase().replace(/\/+$/, ''))
    .filter(Boolean);
}

/** onRequest of POST /agent/mcp: 403 for an Origin header that is present and not allowed. */
export function originGuard(allowed: readonly string[]) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (allowed.includes(String(origin).trim().toLowerCase())) return;
    return rpcError(reply, 403, ErrorCode.InvalidRequest, 'Origin not allowed: this MCP endpoint serves agents, not browser pages');
  };
}

/** A batch (a JSON array) is refused with one JSON-RPC error, before any message of it runs. */
export function refuseBatch(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  if (!Array.isArray(request.body)) return undefined;
  return rpcError(
    reply,
    400,
    ErrorCode.InvalidRequest,
    'JSON-RPC batches are not supported (MCP 2025-06-18 has none): send one message per POST',
  );
}

/** The answer's text, or a JSON-RPC error in its place when it is larger than `max` bytes. */
export function boundAnswer(text: string, max = MAX_ANSWER_BYTES): { text: string; tooLarge: boolean } {
  if (Buffer.byteLength(text, 'utf8') <= max) return { text, tooLarge: false };
  let id: unknown = null;
  try {
    id = (JSON.parse(text) as { id?: unknown }).id ?? null;
  } catch {
    // Not JSON (never expected): the error has no id.
  }
  const error = { code: ErrorCode.InternalError, message: `The answer is larger than ${max} bytes; ask for less (a smaller limit)` };
  return { text: JSON.stringify({ jsonrpc: '2.0', error, id }), tooLarge: true };
}
