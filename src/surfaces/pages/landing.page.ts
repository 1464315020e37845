import type { FastifyInstance } from 'fastify';
import { pageHelmet } from '../../plugins/page-headers.js';
import { renderPage } from './layout.js';

// `GET /`: where a person who opens the server's address in a browser starts. Static HTML, no
// script, no data from the database; hidden from both OpenAPI documents. Links are relative, so
// they follow whatever host and scheme the page was reached by.
const LINKS: { href: string; label: string; note: string }[] = [
  {
    href: '/agent/docs',
    label: 'Agent API explorer',
    note: 'the /agent surface for a support agent (Authorize with X-API-Key); the same operations are MCP tools at POST /agent/mcp',
  },
  { href: '/docs', label: 'Partner API explorer', note: 'checkout, provisioning, serviceability, subscriber self-service' },
  { href: '/agent/openapi.json', label: 'Agent OpenAPI document', note: 'OpenAPI 3.1, JSON' },
  { href: '/openapi.json', label: 'Partner OpenAPI document', note: 'OpenAPI 3.1, JSON; the same routes also answer under /api/v1' },
  { href: '/healthz', label: 'Health', note: 'answers while the process is up' },
];

const PAGE = renderPage({
  title: 'netsvc API',
  width: 44,
  indexable: true,
  style:
    'h1{font-size:1.5rem;margin-bottom:.25rem}li{margin:.5rem 0}code{background:#f3f4f6;padding:0 .25rem;border-radius:3px}.note{color:#4b5563}',
  main: `<h1>netsvc API</h1>
<p class="note">Support-agent and partner API of a fibre/Ethernet access provider.</p>
<ul>
${LINKS.map((l) => `<li><a href="${l.href}">${l.label}</a> <span class="note">(<code>${l.href}</code>): ${l.note}</span></li>`).join('\n')}
</ul>
<p>MCP endpoint: <code>POST /agent/mcp</code> serves the /agent operations as Model Context Protocol tools
(Streamable HTTP, JSON-RPC; the same <code>X-API-Key</code> with <code>agent_api_access</code>): point an MCP client at
this server's address followed by <code>/agent/mcp</code>.</p>
<h2>First steps</h2>
<p>The walkthrough with <code>curl</code> is in the repository's <code>README.md</code>, section
<strong>Walkthrough with curl</strong>: it reads the demo's API keys and customers from
<code>var/demo.json</code>, which <code>npm start</code> writes on an empty database. <code>npm run demo:agent</code>
and <code>npm run demo:partner</code> play the agent conversation and the partner flows against this server.</p>
<p>Mails (the agent's verification codes, booking and payment links) are written as <code>.eml</code> files to
<code>var/outbox</code> while <code>SMTP_URL</code> is unset (the demo's default); <code>npm run -s demo:verify -- &lt;customer&gt;</code>
reads the code from there for you.</p>`,
});

export function registerLandingPage(app: FastifyInstance) {
  app.get('/', { schema: { hide: true }, helmet: pageHelmet() }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(PAGE),
  );
}
