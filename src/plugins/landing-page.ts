import type { FastifyInstance } from 'fastify';
import { pageHelmet } from './page-headers.js';

// `GET /`: where a person who opens the server's address in a browser starts. Static HTML, no
// script, no data from the database; hidden from both OpenAPI documents. Links are relative, so
// they follow whatever host and scheme the page was reached by.
const LINKS: { href: string; label: string; note: string }[] = [
  { href: '/agent/docs', label: 'Agent API explorer', note: 'the /agent surface for a support agent (Authorize with X-API-Key)' },
  { href: '/docs', label: 'Partner API explorer', note: 'checkout, provisioning, serviceability, subscriber self-service' },
  { href: '/agent/openapi.json', label: 'Agent OpenAPI document', note: 'OpenAPI 3.1, JSON' },
  { href: '/openapi.json', label: 'Partner OpenAPI document', note: 'OpenAPI 3.1, JSON; the same routes also answer under /api/v1' },
  { href: '/healthz', label: 'Health', note: 'answers while the process is up' },
];

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>netsvc API</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,Arial,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#111827;line-height:1.5}
h1{font-size:1.5rem;margin-bottom:.25rem}
li{margin:.5rem 0}
a{color:#0b5cad}
code{background:#f3f4f6;padding:0 .25rem;border-radius:3px}
.note{color:#4b5563}
</style>
</head>
<body>
<main>
<h1>netsvc API</h1>
<p class="note">Support-agent and partner API of a fibre/Ethernet access provider.</p>
<ul>
${LINKS.map((l) => `<li><a href="${l.href}">${l.label}</a> <span class="note">(<code>${l.href}</code>): ${l.note}</span></li>`).join('\n')}
</ul>
<h2>First steps</h2>
<p>The walkthrough with <code>curl</code> is in the repository's <code>README.md</code>, section
<strong>Walkthrough with curl</strong>: it reads the demo's API keys and customers from
<code>var/demo.json</code>, which <code>npm start</code> writes on an empty database. <code>npm run demo:agent</code>
and <code>npm run demo:partner</code> play the agent conversation and the partner flows against this server.</p>
</main>
</body>
</html>
`;

export function registerLandingPage(app: FastifyInstance) {
  app.get('/', { schema: { hide: true }, helmet: pageHelmet() }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(PAGE),
  );
}
