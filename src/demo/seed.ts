import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import { sandboxCheckoutUrl } from '../modules/checkout/index.js';
import { buildDemoDataset } from './dataset.js';
import type { DemoDocument } from './document.js';
import { analyzeLoaded, insertRows, lockDemo } from './rows.js';

export type { DemoDocument } from './document.js';

export class DemoRefused extends Error {}

export interface DemoDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'NODE_ENV' | 'publicBaseUrl' | 'DEMO_WEBHOOK_URL' | 'DEMO_EXTERNAL_CHECKOUT_URL'>;
}

export interface DemoLoad {
  document: DemoDocument;
  /** false when the database already held the demo and its stored document was returned. */
  created: boolean;
  ms: number;
}

/**
 * Loads the demo dataset in one transaction, or returns the stored document when the database
 * already holds it (idempotent; concurrent loaders wait on an advisory lock). Secrets are fresh
 * on every load; the document, secrets included, lives in the demo-only `demo_state` table so a
 * second run can print it again.
 */
export async function loadDemo({ db, clock, config }: DemoDeps, opts: { occupancy?: number } = {}): Promise<DemoLoad> {
  if (config.NODE_ENV === 'production') {
    throw new DemoRefused('refusing to load the demo dataset: NODE_ENV=production');
  }
  const started = Date.now();
  const existing = await readDemoDocument(db);
  if (existing) return { document: existing, created: false, ms: Date.now() - started };

  // Password hashing (argon2) happens here, outside the transaction, to keep it short.
  const { rows, document } = await buildDemoDataset({
    now: clock.now(),
    baseUrl: config.publicBaseUrl,
    externalCheckoutUrl: config.DEMO_EXTERNAL_CHECKOUT_URL ?? sandboxCheckoutUrl(config),
    webhookUrl: config.DEMO_WEBHOOK_URL ?? null,
    occupancy: opts.occupancy,
  });
  const load = await db.transaction().execute(async (trx) => {
    await lockDemo(trx);
    // Another loader may have finished while this one built its rows.
    const stored = await trx.selectFrom('demo_state').select('document').where('id', '=', 1).executeTakeFirst();
    if (stored) return { document: fromStoredForm(stored.document), created: false, ms: Date.now() - started };
    document.counts = await insertRows(trx, rows);
    await trx
      .insertInto('demo_state')
      .values({ id: 1, document: storedForm(document) })
      .execute();
    return { document, created: true, ms: Date.now() - started };
  });
  // Statistics only speed later reads: a failed ANALYZE never turns a committed load into an error.
  if (load.created) await analyzeLoaded(db).catch(() => undefined);
  return load;
}

/** Whether the database was ever loaded with the demo dataset (its document, secrets in clear, is in demo_state). */
export async function holdsDemoDataset(db: Db): Promise<boolean> {
  return (await db.selectFrom('demo_state').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/**
 * The stored document, with each demo provider's webhook endpoint as the database has it now: a later
 * `npm run provider:webhook` changes the URL (and may rotate the signing secret), and the document
 * `npm start` writes must say so rather than what the seed chose.
 */
export async function readDemoDocument(db: Db): Promise<DemoDocument | null> {
  const row = await db.selectFrom('demo_state').select('document').where('id', '=', 1).executeTakeFirst();
  if (!row) return null;
  const doc = fromStoredForm(row.document);
  const ids = Object.values(doc.providers).map((p) => p.id);
  const now = await db.selectFrom('providers').select(['id', 'webhook_url', 'webhook_signing_secret']).where('id', 'in', ids).execute();
  const byId = new Map(now.map((p) => [p.id, p]));
  const main = byId.get(doc.providers.main.id);
  if (main) doc.webhook_url = main.webhook_url;
  for (const p of Object.values(doc.providers) as { id: string; webhook_signing_secret?: string }[]) {
    const current = byId.get(p.id)?.webhook_signing_secret;
    if (current && 'webhook_signing_secret' in p) p.webhook_signing_secret = current;
  }
  return doc;
}

// jsonb reorders object keys; the document is kept as one JSON string inside the jsonb value so a
// reprint is byte-for-byte the first print.
const storedForm = (document: DemoDocument) => JSON.stringify(JSON.stringify(document));
const fromStoredForm = (value: unknown): DemoDocument => (typeof value === 'string' ? JSON.parse(value) : value) as DemoDocument;

/** Empty: no provider at all (a fresh database); a database with other data is never seeded by `npm start`. */
export async function isDatabaseEmpty(db: Db): Promise<boolean> {
  return (await db.selectFrom('providers').select('id').limit(1).executeTakeFirst()) === undefined;
}

/** One line per named thing, for people reading a terminal. */
export function summarize(load: DemoLoad): string {
  const d = load.document;
  const c = d.customers;
  const lines = [
    load.created ? `Demo dataset loaded in ${(load.ms / 1000).toFixed(1)} s.` : 'Demo dataset already loaded; the stored document follows.',
    `  main provider   ${d.providers.main.name} (${d.providers.main.id})`,
    `    API key         ${d.providers.main.api_key}`,
    `    webhook secret  ${d.providers.main.webhook_secret}`,
    `    admin login     ${d.providers.main.admin.email} / ${d.providers.main.admin.password}`,
    `    support login   ${d.providers.main.support.email} / ${d.providers.main.support.password}`,
    `  plans           basic ${d.plans.basic.monthly_price}, fast ${d.plans.fast.monthly_price}, faster ${d.plans.faster.monthly_price} ${d.plans.basic.currency}`,
    `  customers       invoiced ${c.invoiced.name} (${c.invoiced.customer_number}), activated ${c.activated.email} / ${c.activated.password}`,
    `                  ambiguous "${c.ambiguous[0].name}" in units ${c.ambiguous[0].unit_label} and ${c.ambiguous[1].unit_label}`,
    `  first-line      ${d.buildings.first_line.address} (location_hash ${d.buildings.first_line.location_hash})`,
    `  checkout        pending session ${d.checkout_sessions.pending.id}`,
  ];
  const counts = Object.entries(d.counts)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${n}`);
  if (counts.length) lines.push(`  rows            ${counts.join(', ')}`);
  lines.push('Print the whole document with: npm run seed:demo -- --json');
  return lines.join('\n');
}
