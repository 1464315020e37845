import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import type { DemoDocument } from './document.js';
import { isDatabaseEmpty, loadDemo, readDemoDocument } from './seed.js';

const DEMO_DOCUMENT_FILE = 'var/demo.json';

export interface DemoAtStart {
  document: DemoDocument | null;
  /** One line saying what happened, for the start banner. */
  note: string;
}

export interface EnsureDemoDeps {
  db: Db;
  clock: Clock;
  config: Config;
}

/**
 * What `npm start` does before listening: an empty database gets the demo dataset (unless
 * DEMO_SEED=false or NODE_ENV=production), a database holding the demo keeps it, and in both
 * cases the document is written to var/demo.json. A database with other data is left alone.
 */
export async function ensureDemo(
  deps: EnsureDemoDeps,
  file = DEMO_DOCUMENT_FILE,
  progress: (line: string) => void = () => undefined,
): Promise<DemoAtStart> {
  const { config } = deps;
  if (config.NODE_ENV === 'production') return { document: null, note: 'NODE_ENV=production: the demo dataset is never loaded' };
  let document = await readDemoDocument(deps.db);
  let note = `demo dataset already loaded; document written to ${file}`;
  if (!document) {
    if (!config.DEMO_SEED) return { document: null, note: 'DEMO_SEED=false: demo dataset not loaded' };
    if (!(await isDatabaseEmpty(deps.db))) return { document: null, note: 'the database holds other data: demo dataset not loaded' };
    progress('Loading the demo dataset into the empty database (about 300 customers with a year of history) ...');
    const load = await loadDemo(deps);
    document = load.document;
    progress(`Demo dataset loaded in ${(load.ms / 1000).toFixed(1)} s: ${demoCounts(document.counts)}`);
    note = `demo dataset loaded in ${(load.ms / 1000).toFixed(1)} s; document written to ${file}`;
  }
  document = await writeDemoDocument(document, config.publicBaseUrl, file);
  return { document, note };
}

/**
 * Writes the document with `base_url` set to where this server answers now (the stored document
 * keeps the address of the start that loaded it; the demo scripts read it from the file). `npm start`
 * writes it again after listening when the address was only known then (PORT=0, a wildcard HOST).
 */
export async function writeDemoDocument(document: DemoDocument, baseUrl: string, file = DEMO_DOCUMENT_FILE): Promise<DemoDocument> {
  const current = { ...document, base_url: baseUrl };
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  // The document holds the demo's secrets: readable by the owner only.
  await writeFile(file, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return current;
}

/** The counts a person recognises, then the total: "4 providers, 312 subscribers, ... (9,876 rows)". */
function demoCounts(counts: Record<string, number>): string {
  const named: [string, string][] = [
    ['providers', 'providers'],
    ['subscribers', 'subscribers'],
    ['subscriptions', 'subscriptions'],
    ['invoices', 'invoices'],
    ['buildings', 'buildings'],
    ['units', 'units'],
  ];
  const parts = named.flatMap(([t, label]) => (counts[t] === undefined ? [] : [`${counts[t].toLocaleString('en-US')} ${label}`]));
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return `${parts.join(', ')} (${total.toLocaleString('en-US')} rows in ${Object.keys(counts).length} tables)`;
}
