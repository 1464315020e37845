// POST /agent/mcp: the /agent operations as Model Context Protocol tools (Streamable HTTP
// transport, stateless: every POST is answered on its own, as JSON). Inside the agent surface, so
// the X-API-Key hook, the envelope and the request id are the other routes' own; tool calls then
// run mcp.call.ts. Kept out of the OpenAPI document (JSON-RPC, described in docs/agents.md).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { limit } from '../../plugins/rate-limit.js';
import { ERRORS } from '../../lib/errors.catalogue.js';
import { inputJsonSchema, mcpWords, type Operation } from './mcp.catalogue.js';
import { callTool } from './mcp.call.js';
import { toolOperations, TOOLS } from './mcp.tools.js';
import { boundAnswer, MCP_BODY_LIMIT, originGuard, parseAllowedOrigins, refuseBatch } from './mcp.guards.js';

const SERVER_INFO = { name: 'netsvc-agent', version: '1' };
const FLOW =
  "Support-agent tools for the customers of one provider (the API key's). The conversation: " +
  '1. identify the caller with search_customers (when ambiguous, ask for the service address or unit and search again; never pick a match yourself); ' +
  '2. verify them: issue_verification_code, then check_verification_code with the code they read back; its verified_session goes into every verified tool for that customer (15 minutes); ' +
  '3. read: get_customer_profile, get_billing_summary, list_payments, get_network_health, list_customer_tickets; ' +
  "4. change, only with the customer's consent: list_plan_options, preview_plan_change (tell the customer the price or the note), then apply_plan_change with confirm: true and the preview's quote_token; " +
  'when the preview says escalation_required, do not apply: open a ticket. After a change, list_recent_changes tells whether it can still be undone (the undo link in the confirmation mail, 24 hours) and resend_change_confirmation mails it again; ' +
  '5. escalate what you cannot resolve with create_ticket. ' +
  'Every tool error is {error: {code, message, request_id}}: branch on code; message ends with its next step.';

/** The server's instructions: the flow, then each error code with its next step (in the tools' words). */
function instructionsOf(words: (s: string) => string): string {
  const table = Object.entries(ERRORS)
    .map(([code, { next }]) => `- ${code} (${next.action}): ${next.text}`)
    .join('\n');
  return words(`${FLOW}\n\nError code -> next step:\n${table}`);
}

/** Every `description` of a tool's input schema in the tools' words (no HTTP paths or headers). */
function describedInTools<T>(schema: T, words: (s: string) => string): T {
  if (Array.isArray(schema)) return (schema as unknown[]).map((x) => describedInTools(x, words)) as T;
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === 'description' && typeof v === 'string' ? words(v) : describedInTools(v, words)]),
  ) as T;
}

interface Catalogue {
  ops: Operation[];
  byTool: Map<string, Operation>;
  words: (s: string) => string;
  list: { name: string; title: string; description: string; inputSchema: ReturnType<typeof inputJsonSchema>; annotations: object }[];
  instructions: string;
}

export const mcpRoutes: FastifyPluginAsync = async (app) => {
  // Read once, on the first call: by then every /agent route is registered.
  let catalogue: Catalogue | undefined;
  const catalogueOf = (): Catalogue => {
    if (catalogue) return catalogue;
    const ops = toolOperations(app);
    const words = mcpWords(ops);
    const list = ops.map((op) => {
      const spec = TOOLS[op.operationId]!;
      return {
        name: op.tool,
        title: op.title,
        description: op.description,
        inputSchema: describedInTools(inputJsonSchema(op, op.verified ? 'required' : (spec.session ?? 'none'), spec.requires), words),
        annotations: { title: op.title, ...spec.annotations },
      };
    });
    return (catalogue = { ops, byTool: new Map(ops.map((op) => [op.tool, op])), words, list, instructions: instructionsOf(words) });
  };

  /** One MCP server per POST (the SDK's stateless pattern), knowing the request's API key. */
  function serverFor(request: FastifyRequest) {
    const c = catalogueOf();
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: c.instructions });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: c.list }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      const op = c.byTool.get(req.params.name);
      if (!op) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${req.params.name}`);
      return callTool(app, request, op, req.params.arguments, c.words);
    });
    return server;
  }

  const onRequest = originGuard(parseAllowedOrigins(app.config.MCP_ALLOWED_ORIGINS));
  const options = { config: { rateLimit: limit('agent.mcp') }, schema: { hide: true }, bodyLimit: MCP_BODY_LIMIT, onRequest };
  app.post('/mcp', options, async (request, reply) => {
    const refused = refuseBatch(request, reply);
    if (refused) return refused;
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
  app.get('/mcp', options, notAllowed);
  app.delete('/mcp', options, notAllowed);
};

/** The transport's web Response, through Fastify (so its hooks, headers and logs apply). */
async function send(reply: FastifyReply, answer: Response) {
  reply.code(answer.status);
  answer.headers.forEach((value, key) => {
    if (key !== 'content-length') reply.header(key, value);
  });
  const body = boundAnswer(await answer.text());
  return reply.send(body.text || undefined);
}
