// `npm run provider:webhook -- --provider <id> --url <https://…> [--rotate-secret]`, or `--clear`:
// sets where a provider's webhooks go on DATABASE_URL (or the embedded database), gives it a signing
// secret when it has none (or a new one with --rotate-secret; printed once) and sends the deliveries
// that waited in the outbox for a URL now. No API route changes a provider's webhook endpoint.
// With NODE_ENV=production the URL must be https and must not resolve to a private, loopback or
// link-local address; elsewhere http is accepted on loopback only (src/lib/outbound-url.ts).
// The demo document (DEMO_JSON, default var/demo.json), when it names this provider, is updated too:
// its `webhook_url` (the main provider's) and the provider's `webhook_signing_secret` after a rotation,
// so `npm run demo:partner` sees the new endpoint.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ConfigError, loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { createJobQueue } from '../src/jobs/queue.js';
import { systemClock } from '../src/lib/clock.js';
import { configureWebhookEndpoint, EndpointError } from '../src/webhooks/endpoint.js';
import { createWebhooks } from '../src/webhooks/outbox.js';

const USAGE =
  'usage: npm run provider:webhook -- --provider <provider id> (--url <https URL; http only on loopback outside production> [--rotate-secret] | --clear)';

function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

let args;
try {
  args = parseArgs({
    options: { provider: { type: 'string' }, url: { type: 'string' }, clear: { type: 'boolean' }, 'rotate-secret': { type: 'boolean' } },
    strict: true,
  }).values;
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`, 2);
}
if (!args.provider || (args.url === undefined) === !args.clear) fail(USAGE, 2);

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) fail(err.message);
  throw err;
}
const handle = await createDb({ databaseUrl: config.DATABASE_URL, embeddedDir: config.EMBEDDED_DB_DIR });
try {
  const jobs = createJobQueue({ db: handle.db, clock: systemClock, log: pino({ level: 'silent' }), config });
  const webhooks = createWebhooks({ jobs, clock: systemClock });
  const r = await configureWebhookEndpoint({ db: handle.db, webhooks, production: config.NODE_ENV === 'production' }, args.provider, {
    url: args.clear ? null : args.url!,
    rotateSecret: args['rotate-secret'],
  });
  console.log(`provider ${r.providerName} (${r.providerId})`);
  console.log(r.url ? `webhook URL: ${r.url}` : 'webhook URL removed: deliveries wait in the outbox until one is set');
  if (r.newSecret) console.log(`new signing secret (shown once; the receiver verifies signatures with it): ${r.newSecret}`);
  if (r.url) console.log(`released ${r.released} delivery(ies) that waited for a URL`);
  const updated = updateDemoDocument(process.env.DEMO_JSON ?? 'var/demo.json', r.providerId, r.url, r.newSecret ?? null);
  if (updated) console.log(`updated ${updated}`);
} catch (err) {
  if (err instanceof EndpointError) fail(err.message);
  throw err;
} finally {
  await handle.close();
}

/** Keeps the demo document in step with the database; returns its path when it changed. */
function updateDemoDocument(file: string, providerId: string, url: string | null, newSecret: string | null): string | null {
  if (!existsSync(file)) return null;
  let doc: { webhook_url?: string | null; providers?: Record<string, { id?: string; webhook_signing_secret?: string }> };
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  const entries = Object.entries(doc.providers ?? {}).filter(([, p]) => p?.id === providerId);
  if (entries.length === 0) return null;
  for (const [name, p] of entries) {
    if (name === 'main') doc.webhook_url = url;
    if (newSecret) p.webhook_signing_secret = newSecret;
  }
  const partial = `${file}.partial`;
  writeFileSync(partial, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
  return file;
}
