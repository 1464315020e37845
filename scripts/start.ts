// `npm start`: the real server, with the demo dataset loaded into an empty database first
// (see src/demo/startup.ts) and a banner saying how to call it.
import { demoStartEnv, ensureDemo, writeDemoDocument, type DemoAtStart } from '../src/demo/startup.js';
import { loadConfigOrExit, startServer } from '../src/server.js';

const { env, sandboxNote } = demoStartEnv(process.env);
const config = loadConfigOrExit(env);
let demo: DemoAtStart = { document: null, note: '' };
const { baseUrl } = await startServer(config, {
  beforeListen: async (app) => {
    demo = await ensureDemo(app.deps);
  },
});
if (demo.document && demo.document.base_url !== baseUrl) demo.document = await writeDemoDocument(demo.document, baseUrl);

const key = demo.document?.providers.main.api_key ?? '<your API key>';
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const checkBody = JSON.stringify({ address: demo.document?.buildings.first_line.address ?? 'Invalidenstraße 12a, 10115 Berlin' });
const searchName = demo.document?.customers.invoiced.last_name ?? 'Brandt';
process.stdout.write(
  [
    '',
    `netsvc API ready at ${baseUrl}`,
    `  Agent API explorer    ${baseUrl}/agent/docs   (OpenAPI: ${baseUrl}/agent/openapi.json)`,
    `  Partner API explorer  ${baseUrl}/docs         (OpenAPI: ${baseUrl}/openapi.json)`,
    `  Main provider API key ${key}`,
    `  Demo                  ${demo.note}`,
    `  Sandbox checkout page ${sandboxNote}`,
    '',
    'Try:',
    `  curl -s ${q(`${baseUrl}/agent/customers/search?q=${encodeURIComponent(searchName)}`)} -H ${q(`X-API-Key: ${key}`)}`,
    `  curl -s -X POST ${q(`${baseUrl}/serviceability/check`)} -H ${q(`X-API-Key: ${key}`)} -H 'Content-Type: application/json' -d ${q(checkBody)}`,
    '',
    '',
  ].join('\n'),
);
