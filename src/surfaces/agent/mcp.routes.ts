// POST /agent/mcp: the /agent operations as Model Context Protocol tools (Streamable HTTP
// transport, stateless: every POST is answered on its own, as JSON). Inside the agent surface, so
// the X-API-Key hook, the envelope and the request id are the other routes' own; tool calls then
// run mcp.call.ts. Kept out of the OpenAPI document (JSON-RPC, described in README "Agents").
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { limit } from '../../plugins/rate-limit.js';
import { inputJsonSchema, mcpWords, type Operation } from './mcp.catalogue.js';
import { callTool } from './mcp.call.js';
import { toolOperations, TOOLS } from './mcp.tools.js';

const SERVER_INFO = { name: 'netsvc-agent', version: '1' };
const INSTRUCTIONS =
  "Support-agent tools for the customers of one provider (the API key's). The conversation: identify the caller " +
  '(search_customers; never pick a match when ambiguous), verify them (issue_verification_code, then check_verification_code ' +
  'with the code they read back: its verified_session goes into every verified tool for that customer), read, preview a plan ' +
  'change and apply it only with confirm: true after the customer agreed to the quoted cost, and escalate with create_ticket.';

interface Catalogue {
  ops: Operation[];
  byTool: Map<string, Operation>;
  words: (s: string) => string;
  list: { name: string; title: string; description: string; inputSchema: ReturnType<typeof inputJsonSchema>; annotations: object }[];
}

export const mcpRoutes: FastifyPluginAsync = async (app) => {
  // Read once, on the first call: by then every /agent route is registered.
  let catalogue: Catalogue | undefined;
  const catalogueOf = (): Catalogue => {
    if (catalogue) return catalogue;
    const ops = toolOperations(app);
    const list = ops.map((op) => {
      const spec = TOOLS[op.operationId]!;
      return {
        name: op.tool,
        title: op.title,
        description: op.description,
        inputSchema: inputJsonSchema(op, op.verified ? 'required' : (spec.session ?? 'none')),
        annotations: { title: op.title, ...spec.annotations },
      };
    });
    return (catalogue = { ops, byTool: new Map(ops.map((op) => [op.tool, op])), words: mcpWords(ops), list });
  };

  /** One MCP server per POST (the SDK's stateless pattern), knowing the request's API key. */
  function serverFor(request: FastifyRequest) {
    const c = catalogueOf();
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: c.list }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      const op = c.byTool.get(req.params.name);
      if (!op) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${req.params.name}`);
      return callTool(app, request, op, req.params.arguments, c.words);
    });
    return server;
  }

  app.post('/mcp', { config: { rateLimit: limit('agent.mcp') }, schema: { hide: true } }, async (request, reply) => {
    const server = serverFor(request);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const headers = new Headers();
      for (const [k, v] of Object.entries(request.headers)) if (typeof v === 'string') headers.set(k, v);
      const answer = await transport.handleRequest(new Request(`http://localhost${request.url}`, { method: 'POST', headers }), {
        parsedBody: request.body,
      });
      return await send(reply, answer);
    } finally {
      await transport.close();
      await server.close();
    }
  });

  // Stateless: no server-sent event stream to open (GET) and no session to end (DELETE).
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({
        jsonrpc: '2.0',
        error: { code: ErrorCode.ConnectionClosed, message: 'Method not allowed: POST JSON-RPC messages to /agent/mcp' },
        id: null,
      });
  app.get('/mcp', { config: { rateLimit: limit('agent.mcp') }, schema: { hide: true } }, notAllowed);
  app.delete('/mcp', { config: { rateLimit: limit('agent.mcp') }, schema: { hide: true } }, notAllowed);
};

/** The transport's web Response, through Fastify (so its hooks, headers and logs apply). */
async function send(reply: FastifyReply, answer: Response) {
  reply.code(answer.status);
  answer.headers.forEach((value, key) => {
    if (key !== 'content-length') reply.header(key, value);
  });
  const body = await answer.text();
  return reply.send(body || undefined);
}
