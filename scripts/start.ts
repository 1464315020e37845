// `npm start`: the real server, with the demo dataset loaded into an empty database first
// (see src/demo/startup.ts) and a banner saying how to call it.
import { demoStartEnv } from '../src/demo/start-env.js';
import { exitOnConfigError, loadConfigOrExit } from '../src/config-or-exit.js';
import type { DemoAtStart } from '../src/demo/startup.js';
import type { SimulatorServer } from '../src/adapters/index.js';

const { env, sandboxNote } = demoStartEnv(process.env);
// The settings first: a wrong one ends the start before the server's code is loaded (0.5 s, not 3 s).
const config = loadConfigOrExit(env);
const { ensureDemo, writeDemoDocument } = await import('../src/demo/startup.js');
const { isDatabaseEmpty } = await import('../src/demo/seed.js');
const { startServer } = await import('../src/server.js');
// Progress, one line a step, so a first start (migrations, the demo load) is never silent.
const t0 = Date.now();
const since = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
const step = (line: string) => process.stdout.write(`${line}\n`);
step(
  config.DATABASE_URL
    ? 'Connecting to DATABASE_URL and applying migrations ...'
    : `Opening the embedded database in ${config.EMBEDDED_DB_DIR} and applying migrations ...`,
);
let demo: DemoAtStart = { document: null, note: '' };
let noProvider = false;
const { baseUrl, app } = await startServer(config, {
  beforeListen: async (app) => {
    step(`Database ready (migrated) after ${since()}`);
    demo = await ensureDemo(app.deps, undefined, step);
    noProvider = !demo.document && (await isDatabaseEmpty(app.deps.db));
    step(`Listening on ${config.HOST}:${config.PORT} after ${since()} ...`);
  },
}).catch(exitOnConfigError);
if (demo.document && demo.document.base_url !== baseUrl) demo.document = await writeDemoDocument(demo.document, baseUrl);

// Without the demo there is no key to print: an empty database says how to onboard the first
// provider (docs/go-live.md); one with providers of its own says nothing about keys.
if (!demo.document) {
  process.stdout.write(
    [
      '',
      `netsvc API ready at ${baseUrl} (started in ${since()})`,
      `  Agent API explorer    ${baseUrl}/agent/docs   (OpenAPI: ${baseUrl}/agent/openapi.json)`,
      `  Partner API explorer  ${baseUrl}/docs         (OpenAPI: ${baseUrl}/openapi.json)`,
      `  Demo                  ${demo.note}`,
      `  Simulators            ${simulatorNote(app.simulators)}`,
      noProvider
        ? '  No provider yet: npm run ops -- provider create --help   (docs/go-live.md)'
        : '  Providers and keys    npm run ops -- provider list   (docs/operations.md)',
      '',
      '',
    ].join('\n'),
  );
} else {
  printDemoBanner(demo.document);
}

function printDemoBanner(document: NonNullable<DemoAtStart['document']>) {
  const key = document.providers.main.api_key;
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const checkBody = JSON.stringify({ address: document.buildings.first_line.address });
  const searchName = document.customers.invoiced.last_name;
  process.stdout.write(
    [
      '',
      `netsvc API ready at ${baseUrl} (started in ${since()})`,
      `  Agent API explorer    ${baseUrl}/agent/docs   (OpenAPI: ${baseUrl}/agent/openapi.json)`,
      `  Partner API explorer  ${baseUrl}/docs         (OpenAPI: ${baseUrl}/openapi.json)`,
      `  Main provider API key ${key}`,
      `  Demo                  ${demo.note}`,
      `  Sandbox checkout page ${sandboxNote}`,
      `  Simulators            ${simulatorNote(app.simulators)}`,
      '',
      'Try:',
      `  curl -s ${q(`${baseUrl}/agent/customers/search?q=${encodeURIComponent(searchName)}`)} -H ${q(`X-API-Key: ${key}`)}`,
      `  curl -s -X POST ${q(`${baseUrl}/serviceability/check`)} -H ${q(`X-API-Key: ${key}`)} -H 'Content-Type: application/json' -d ${q(checkBody)}`,
      '',
      '',
    ].join('\n'),
  );
}

/** Where the switch and billing simulators answer, and how to inject a fault (docs/integration.md). */
function simulatorNote(sim: SimulatorServer | null): string {
  if (!sim) return 'none (SWITCH_URL and BILLING_URL are set)';
  return (
    `${sim.url} (switch, billing); inject a fault: curl -s -X POST ${sim.url}/_control/faults ` +
    `-H 'Authorization: Bearer ${sim.controlToken}' -H 'Content-Type: application/json' -d '{"system":"switch","mode":"unreachable","times":1}'`
  );
}
