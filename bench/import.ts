// `npm run bench:import -- [--addresses 1000000] [--reimport]`: generates a CSV of serviceability
// addresses (German and Canadian, suffixed house numbers, every 20th linked to nothing else) and
// imports it with the operator's import (src/modules/inventory) into a new provider on
// DATABASE_URL, timing the whole import (parse, checks, one transaction, commit). With --reimport it
// imports the same file again (every row an update). Refuses to measure on a busy machine (1-minute
// load average of 1.5 or more) unless --force: the figure in bench/README.md is an idle machine's.
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createAdapters } from '../src/adapters/index.js';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { createDb } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { systemClock } from '../src/lib/clock.js';

const { values: args } = parseArgs({
  options: { addresses: { type: 'string', default: '1000000' }, reimport: { type: 'boolean' }, force: { type: 'boolean' } },
});
const n = Number(args.addresses);
if (!process.env.DATABASE_URL)
  throw new Error('set DATABASE_URL to a PostgreSQL database of its own (the bench adds a provider and its addresses)');
if (loadavg()[0]! >= 1.5 && !args.force) {
  console.error(`the machine is busy (1-minute load ${loadavg()[0]!.toFixed(2)}): measure when it is idle, or pass --force`);
  process.exit(1);
}

const STREETS_DE = ['Hauptstraße', 'Bahnhofstraße', 'Gartenweg', 'Schillerstraße', 'Goethestraße', 'Lindenallee', 'Am Markt', 'Kirchplatz'];
const STREETS_CA = ['King Street West', 'Queen Street East', 'Spadina Avenue', 'Bloor Street', 'Yonge Street', 'College Street'];
const CA_POSTCODES = ['M5V 2T6', 'M5V 2A5', 'M4Y 1P8', 'M5S 1A1', 'M6J 1H3'];

async function generate(file: string) {
  const out = createWriteStream(file);
  out.write('street,house_number,postal_code,city,province,country\n');
  for (let i = 0; i < n; i++) {
    let line: string;
    if (i % 5 === 4) {
      const street = `${STREETS_CA[i % STREETS_CA.length]} ${Math.floor(i / 1000)}`;
      line = `${street},${1 + (i % 997)}${i % 7 === 0 ? 'B' : ''},${CA_POSTCODES[i % CA_POSTCODES.length]},Toronto,ON,CA\n`;
    } else {
      const street = `${STREETS_DE[i % STREETS_DE.length]} ${Math.floor(i / 800)}`;
      const suffix = i % 9 === 0 ? ' a' : i % 11 === 0 ? 'b' : '';
      line = `${street},${1 + (i % 199)}${suffix},${String(10115 + (i % 9000)).padStart(5, '0')},Berlin,Berlin,DE\n`;
    }
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

const dir = mkdtempSync(path.join(tmpdir(), 'bench-import-'));
const file = path.join(dir, 'addresses.csv');
const config = loadConfig({ ...process.env, JWT_SECRET: process.env.JWT_SECRET ?? 'bench-only-secret-'.padEnd(48, 'x') });
const handle = await createDb({ databaseUrl: config.DATABASE_URL, poolSize: 2 });
const external = await createAdapters({ config, db: handle.db, clock: systemClock });
try {
  await migrate(handle);
  const { services } = createContainer(config, handle, systemClock, pino({ level: 'silent' }), { adapters: external.adapters });
  let t = Date.now();
  await generate(file);
  console.log(`generated ${n} addresses (${(statSync(file).size / 1e6).toFixed(1)} MB) in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const slug = `bench-import-${Date.now()}`;
  const { provider } = await services.providerAdmin.create({ name: 'Import bench', slug, support_email: 'bench@import.test' });
  for (const run of args.reimport ? ['first import', 're-import'] : ['first import']) {
    t = Date.now();
    const r = await services.inventory.importCsv(provider.id, 'addresses', createReadStream(file));
    const s = (Date.now() - t) / 1000;
    console.log(
      `${run}: ${r.rows} rows (${r.inserted} new, ${r.updated} updated, ${r.errors_total} errors) in ${s.toFixed(1)} s = ${Math.round(r.rows / s)} rows/s; load ${loadavg()[0]!.toFixed(2)}`,
    );
  }
} finally {
  await external.close();
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
}
