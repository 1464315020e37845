// npm run bench:data -- --customers 1000000 [--providers 1] [--addresses 1000000] [--free-locations 20000] [--force]
// Loads the customers into DATABASE_URL (a database of its own: it is wiped first) with COPY, then
// writes bench/dataset.json: the credentials, sample queries with the row each must find, verified
// sessions and free ports that the harness (bench/run.ts) drives. One provider by default; with
// --providers P > 1 the bench provider (the one the harness drives) holds a third of the customers
// and the other P - 1 share the rest in sizes falling as 1/k (a long tail of small providers).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import pg from 'pg';
import { createDb } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { newPrefixedSecret, sha256 } from '../src/lib/crypto.js';
import { copyRows } from './copy.js';
import { CA_CITIES, CA_STREETS, DE_CITIES, DE_STREETS, FIRST, LAST } from './names.js';
import { coverageKeys } from './coverage-keys.js';

const { values: args } = parseArgs({
  options: {
    customers: { type: 'string', default: '1000000' },
    providers: { type: 'string', default: '1' },
    addresses: { type: 'string', default: '1000000' },
    'free-locations': { type: 'string', default: '20000' },
    sessions: { type: 'string', default: '500' },
    force: { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench/dataset.json' },
  },
});
const N = Number(args.customers);
const PROVIDERS = Math.max(1, Number(args.providers));
const ADDRESSES = Number(args.addresses);
const FREE = Number(args['free-locations']);
const SESSIONS = Number(args.sessions);
const url = process.env.DATABASE_URL;
if (!url) {
  console.error('bench:data needs DATABASE_URL (a PostgreSQL database of its own: it is wiped first)');
  process.exit(1);
}
const dbName = new URL(url).pathname.slice(1);
if (!/bench/i.test(dbName) && !args.force) {
  console.error(`refusing to wipe database "${dbName}": use a database whose name contains "bench", or pass --force`);
  process.exit(1);
}

// Deterministic variety: the same flags give the same data.
let seed = 0x2f6b1d;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
const uuid = (ns: number, i: number) => `${ns.toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const ascii = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase();
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
function customerNumber(i: number) {
  // a bijection of 0..24^4*10^4-1, so numbers are unique and look random
  let n = (i * 7919 + 12345) % (24 ** 4 * 10_000);
  const digits = n % 10_000;
  n = Math.floor(n / 10_000);
  let letters = '';
  for (let k = 0; k < 4; k++) {
    letters += LETTERS[n % 24];
    n = Math.floor(n / 24);
  }
  return `${letters}-${String(digits).padStart(4, '0')}`;
}
function phone(i: number): { written: string; e164: string; other: string } {
  const n = String((i * 7919 + 13) % 1_000_000_000).padStart(9, '0');
  if (i % 5 === 4) {
    const area = ['416', '514', '604', '613'][i % 4];
    const local = n.slice(2);
    const e164 = `+1${area}${local}`;
    const forms = [
      `+1 ${area}-${local.slice(0, 3)}-${local.slice(3)}`,
      `(${area}) ${local.slice(0, 3)}-${local.slice(3)}`,
      `${area}.${local.slice(0, 3)}.${local.slice(3)}`,
    ];
    return { written: forms[i % 3]!, e164, other: forms[(i + 1) % 3]! };
  }
  const e164 = `+4915${n}`;
  const nat = `015${n.slice(0, 1)}`;
  const rest = n.slice(1);
  const forms = [
    `+49 15${n.slice(0, 1)} ${rest}`,
    `${nat} ${rest}`,
    `${nat}/${rest}`,
    e164,
    `(${nat}) ${rest.slice(0, 4)}-${rest.slice(4)}`,
  ];
  return { written: forms[i % 5]!, e164, other: forms[(i + 2) % 5]! };
}

const UNITS_PER_BUILDING = 40;
const buildingsCount = Math.ceil(N / UNITS_PER_BUILDING);
interface Building {
  street: string;
  house: string;
  postal: string;
  city: string;
  province: string | null;
  country: string;
}
function building(b: number): Building {
  if (b % 6 === 5) {
    const [city, prov, letter] = CA_CITIES[b % CA_CITIES.length]!;
    const postal = `${letter}${b % 10}${LETTERS[b % 24]} ${(b * 7) % 10}${LETTERS[(b * 3) % 24]}${(b * 11) % 10}`;
    return { street: CA_STREETS[b % CA_STREETS.length]!, house: String(1 + (b % 900)), postal, city, province: prov, country: 'CA' };
  }
  const [city, pre] = DE_CITIES[b % DE_CITIES.length]!;
  const suffix = b % 7 === 0 ? pick(['a', 'b', 'c']) : '';
  return {
    street: DE_STREETS[b % DE_STREETS.length]!,
    house: `${1 + (b % 180)}${suffix}`,
    postal: `${pre}${String(100 + (b % 900)).padStart(3, '0')}`,
    city,
    province: null,
    country: 'DE',
  };
}
const unitLabel = (u: number) => `${1 + Math.floor(u / 4)}${'ABCD'[u % 4]}`;

/**
 * Each provider's customers as a run of whole buildings: provider 0 (the bench provider) a third
 * (all of them with one provider), the others the rest in sizes proportional to 1/k.
 */
function providerRuns(customers: number, providers: number): number[] {
  const buildings = Math.ceil(customers / UNITS_PER_BUILDING);
  if (providers === 1) return [0, buildings];
  const first = Math.ceil(buildings / 3);
  const weights = Array.from({ length: providers - 1 }, (_, k) => 1 / (k + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.max(1, Math.floor(((buildings - first) * w) / total)));
  sizes[0]! += buildings - first - sizes.reduce((a, b) => a + b, 0);
  const starts = [0, first];
  for (const n of sizes) starts.push(starts[starts.length - 1]! + n);
  return starts; // provider p owns buildings starts[p] .. starts[p + 1] - 1
}
const runs = providerRuns(N, PROVIDERS);
const providerIdOf = (p: number) => uuid(1, p + 1);
/** The provider of building b (binary search over the runs). */
function providerOfBuilding(b: number): number {
  let lo = 0;
  let hi = runs.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (runs[mid]! <= b) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
const providerOf = (i: number) => providerOfBuilding(Math.floor(i / UNITS_PER_BUILDING));
/** The bench provider's customers: 0 .. BENCH_N - 1. */
const BENCH_N = Math.min(N, runs[1]! * UNITS_PER_BUILDING);
const BENCH_BUILDINGS = runs[1]!;

/**
 * Every customer's search document (agent_search_doc, as the migration's backfill writes it), in id
 * ranges over two connections, then each provider's words (search_doc_words) in one statement: the trigger that
 * adds each document's would look every word up again, ten million times over.
 */
async function searchDocuments(progress: (n: number) => void) {
  const pool = new pg.Pool({ connectionString: url, max: 2, options: '-c session_replication_role=replica' });
  const CHUNK = 10_000;
  let next = 0;
  const worker = async () => {
    for (let from = next; from < N; from = next) {
      next += CHUNK;
      const to = Math.min(N, from + CHUNK);
      await pool.query(
        `INSERT INTO search_documents (subscriber_id, provider_id, doc)
         SELECT s.id, s.provider_id, agent_search_doc(s.id) FROM subscribers s WHERE s.id >= $1 AND s.id < $2`,
        [uuid(10, from), uuid(10, to)],
      );
      progress(to - from);
    }
  };
  await Promise.all([worker(), worker()]);
  await pool.query(`INSERT INTO search_doc_words (provider_id, word)
    SELECT DISTINCT provider_id, w FROM search_documents CROSS JOIN LATERAL unnest(tsvector_to_array(doc)) w
    WHERE NOT starts_with(w, 'n:')`);
  await pool.end();
}

async function main() {
  const started = Date.now();
  const admin = new pg.Pool({ connectionString: url, max: 4 });
  await admin.query('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
  const handle = await createDb({ databaseUrl: url, poolSize: 2 });
  await migrate(handle);
  await handle.close();

  const client = await admin.connect();
  // No triggers while loading: each customer and subscription would write its search document, which
  // is written once for all below instead.
  await client.query(`SET session_replication_role = replica`);
  const bars = new cliProgress.MultiBar(
    { format: ' {table} |{bar}| {value}/{total} rows | {duration}s', hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  // A live bar on a terminal; plain progress lines in a log (CI, redirected output).
  const bar = (table: string, total: number) => {
    if (!process.stderr.isTTY) {
      let done = 0;
      return (n: number) => {
        done += n;
        if (done === total || Math.floor(done / 250_000) !== Math.floor((done - n) / 250_000))
          process.stderr.write(`${table}: ${done}/${total}\n`);
      };
    }
    const b = bars.create(total, 0, { table: table.padEnd(20) });
    return (n: number) => b.increment(n);
  };

  // Big tables load without their indexes, which are rebuilt once afterwards (far faster).
  const bigTables = ['subscribers', 'subscriptions', 'invoices', 'coverage_addresses', 'units', 'locations', 'search_documents'];
  const idx = await client.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY($1) AND indexname NOT LIKE '%_pkey'
       AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE contype IN ('u', 'p'))`,
    [bigTables],
  );
  for (const r of idx.rows) await client.query(`DROP INDEX ${r.indexname}`);

  const providerId = providerIdOf(0);
  const key = newPrefixedSecret('sk');
  const whs = newPrefixedSecret('whs');
  await client.query(
    `INSERT INTO providers (id, name, slug, support_email, webhook_secret_prefix, webhook_secret_hash, webhook_signing_secret, external_checkout_url, card_processor_account)
    VALUES ($1, 'Bench Fibre', 'bench-fibre', 'support@bench.test', $2, $3, $4, 'https://checkout.bench.test/pay', 'acct_bench')`,
    [providerId, whs.prefix, whs.hash, `whsec_${Buffer.from('bench-signing-secret-0123456789').toString('base64')}`],
  );
  await client.query(`INSERT INTO api_keys (id, provider_id, prefix, key_hash, features) VALUES ($1, $2, $3, $4, $5)`, [
    uuid(2, 1),
    providerId,
    key.prefix,
    key.hash,
    ['agent_api_access', 'provisioning:write', 'serviceability:read'],
  ]);
  const plans = [
    ['Basic 100', 2999, 100, 20],
    ['Fast 500', 3999, 500, 100],
    ['Faster 1000', 5999, 1000, 250],
  ] as const;
  // The other providers: their rows only (no key, no webhook), and each its three plans.
  await client.query(
    `INSERT INTO providers (id, name, slug, support_email)
    SELECT ('00000001-0000-4000-8000-' || lpad(to_hex(p + 1), 12, '0'))::uuid, 'Bench provider ' || p, 'bench-provider-' || p, 'p' || p || '@bench.test'
    FROM generate_series(1, $1::int - 1) p`,
    [PROVIDERS],
  );
  const planVersionOf = (p: number, k: number) => uuid(3, p * 3 + k + 1);
  const planVersionIds = plans.map((_, k) => planVersionOf(0, k));
  await copyRows(
    client,
    'plans',
    ['id', 'provider_id', 'name'],
    (function* () {
      for (let p = 0; p < PROVIDERS; p++) for (const [k, [name]] of plans.entries()) yield [uuid(4, p * 3 + k + 1), providerIdOf(p), name];
    })(),
    () => undefined,
  );
  await copyRows(
    client,
    'plan_versions',
    ['id', 'plan_id', 'provider_id', 'name', 'monthly_price_cents', 'currency', 'store_product_id', 'download_mbps', 'upload_mbps'],
    (function* () {
      for (let p = 0; p < PROVIDERS; p++)
        for (const [k, [name, price, down, up]] of plans.entries())
          yield [
            planVersionOf(p, k),
            uuid(4, p * 3 + k + 1),
            providerIdOf(p),
            name,
            price,
            'EUR',
            p ? `prod_${p}_${k}` : `prod_${k}`,
            down,
            up,
          ];
    })(),
    () => undefined,
  );

  await client.query('BEGIN');
  await copyRows(
    client,
    'buildings',
    ['id', 'provider_id', 'street', 'house_number', 'postal_code', 'city', 'province', 'country', 'line_type'],
    (function* () {
      for (let b = 0; b < buildingsCount; b++) {
        const a = building(b);
        yield [
          uuid(5, b),
          providerIdOf(providerOfBuilding(b)),
          a.street,
          a.house,
          a.postal,
          a.city,
          a.province,
          a.country,
          b % 10 < 7 ? 'first_line' : b % 10 < 9 ? 'second_line' : 'third_line',
        ];
      }
    })(),
    bar('buildings', buildingsCount),
  );
  // Units 0..39 of each building hold the customers; FREE extra units (with ports) wait for provisioning.
  // Only the bench provider's buildings get them (the provisioning scenario runs as that provider).
  const freePerBuilding = Math.ceil(FREE / Math.max(1, Math.floor(BENCH_BUILDINGS * 0.7)));
  const freeLocations: string[] = [];
  await copyRows(
    client,
    'units',
    ['id', 'building_id', 'label'],
    (function* () {
      for (let i = 0; i < N; i++) yield [uuid(6, i), uuid(5, Math.floor(i / UNITS_PER_BUILDING)), unitLabel(i % UNITS_PER_BUILDING)];
      let f = 0;
      for (let b = 0; b < BENCH_BUILDINGS && f < FREE; b++) {
        if (b % 10 >= 7) continue;
        for (let k = 0; k < freePerBuilding && f < FREE; k++, f++) yield [uuid(7, f), uuid(5, b), `F${k + 1}`];
      }
    })(),
    bar('units', N + FREE),
  );
  await copyRows(
    client,
    'locations',
    ['id', 'provider_id', 'building_id', 'unit_id', 'location_hash', 'location_identifier', 'switch_id', 'switch_port', 'vlan_id'],
    (function* () {
      for (let i = 0; i < N; i++) {
        const b = Math.floor(i / UNITS_PER_BUILDING);
        yield [
          uuid(8, i),
          providerIdOf(providerOfBuilding(b)),
          uuid(5, b),
          uuid(6, i),
          `loc_${sha256(`l${i}`).toString('hex').slice(0, 24)}`,
          `LID-${i}`,
          `sw-${b % 500}`,
          `ge-0/0/${i % 48}`,
          100 + (i % 3000),
        ];
      }
      let f = 0;
      for (let b = 0; b < BENCH_BUILDINGS && f < FREE; b++) {
        if (b % 10 >= 7) continue;
        for (let k = 0; k < freePerBuilding && f < FREE; k++, f++) {
          const hash = `loc_${sha256(`f${f}`).toString('hex').slice(0, 24)}`;
          freeLocations.push(hash);
          yield [uuid(9, f), providerId, uuid(5, b), uuid(7, f), hash, `LIDF-${f}`, `sw-${b % 500}`, `ge-0/1/${k % 48}`, 100 + (f % 3000)];
        }
      }
    })(),
    bar('locations', N + FREE),
  );

  const queries: { class: string; q: string; expect_id: string }[] = [];
  // Sample queries of the bench provider's customers only (the harness searches as that provider).
  const sample = (i: number) => i < BENCH_N && i % Math.max(1, Math.floor(BENCH_N / 4000)) === 0;
  await copyRows(
    client,
    'subscribers',
    [
      'id',
      'provider_id',
      'customer_number',
      'first_name',
      'last_name',
      'email',
      'phone',
      'phone_e164',
      'invoice_street',
      'invoice_house_number',
      'invoice_postal_code',
      'invoice_city',
      'invoice_country',
      'created_at',
    ],
    (function* () {
      for (let i = 0; i < N; i++) {
        const first = pick(FIRST);
        const last = pick(LAST);
        const email = `${ascii(first!)}.${ascii(last!)}${i}@${pick(['example.de', 'mail.test', 'post.example', 'web.example.ca'])}`;
        const p = phone(i);
        const b = building(Math.floor(i / UNITS_PER_BUILDING));
        const id = uuid(10, i);
        if (sample(i)) {
          const k = queries.length % 10;
          const cls = k < 4 ? 'name' : k < 6 ? 'email' : k < 8 ? 'phone' : k < 9 ? 'customer_number' : 'address';
          const q =
            cls === 'name'
              ? `${first} ${last}`
              : cls === 'email'
                ? k % 2
                  ? email.toUpperCase()
                  : email
                : cls === 'phone'
                  ? p.other
                  : cls === 'customer_number'
                    ? customerNumber(i)
                    : `${b.street} ${b.house} ${unitLabel(i % UNITS_PER_BUILDING)}`;
          queries.push({ class: cls, q, expect_id: id });
        }
        yield [
          id,
          providerIdOf(providerOf(i)),
          customerNumber(i),
          first,
          last,
          email,
          p.written,
          p.e164,
          b.street,
          b.house,
          b.postal,
          b.city,
          b.country,
          new Date(Date.UTC(2024, 0, 1) + (i % 700) * 86_400_000),
        ];
      }
    })(),
    bar('subscribers', N),
  );

  const now = new Date();
  const thisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const billed = (i: number) => i % 4 === 0;
  const statusOf = (i: number) => (i % 33 === 7 ? 'SUSPENDED' : i % 20 === 3 ? 'CANCELLED' : 'ACTIVE');
  await copyRows(
    client,
    'subscriptions',
    [
      'id',
      'provider_id',
      'subscriber_id',
      'plan_version_id',
      'building_id',
      'unit_id',
      'location_id',
      'status',
      'service_billed',
      'origin',
      'activated_at',
      'created_at',
      'updated_at',
    ],
    (function* () {
      for (let i = 0; i < N; i++) {
        const t = new Date(Date.UTC(2024, 0, 1) + (i % 700) * 86_400_000);
        yield [
          uuid(11, i),
          providerIdOf(providerOf(i)),
          uuid(10, i),
          planVersionOf(providerOf(i), i % 2),
          uuid(5, Math.floor(i / UNITS_PER_BUILDING)),
          uuid(6, i),
          uuid(8, i),
          statusOf(i),
          billed(i),
          'seed',
          t,
          t,
          t,
        ];
      }
    })(),
    bar('subscriptions', N),
  );

  // A year of monthly invoices for the service-billed quarter; the current month is open.
  const invoiceCount = Math.ceil(N / 4) * 12;
  await copyRows(
    client,
    'invoices',
    [
      'id',
      'provider_id',
      'subscriber_id',
      'subscription_id',
      'invoice_number',
      'kind',
      'period_start',
      'invoice_date',
      'due_date',
      'currency',
      'total_cents',
      'status',
      'paid_at',
      'payment_method',
      'payment_intent_id',
      'payment_reference',
    ],
    (function* () {
      for (let i = 0; i < N; i += 4) {
        for (let m = 11; m >= 0; m--) {
          const month = new Date(Date.UTC(thisMonth.getUTCFullYear(), thisMonth.getUTCMonth() - m, 1));
          const day = month.toISOString().slice(0, 10);
          const open = m === 0;
          yield [
            uuid(12, i * 12 + m),
            providerIdOf(providerOf(i)),
            uuid(10, i),
            uuid(11, i),
            `INV-${i}-${11 - m}`,
            'monthly',
            day,
            day,
            new Date(month.getTime() + 14 * 86_400_000).toISOString().slice(0, 10),
            'EUR',
            i % 2 ? 3999 : 2999,
            open ? 'open' : 'paid',
            open ? null : new Date(month.getTime() + 3 * 86_400_000),
            open ? null : 'card',
            open ? null : `pi_${i}_${m}`,
            open ? null : `PAY-${i}-${m}`,
          ];
        }
      }
    })(),
    bar('invoices', invoiceCount),
  );
  await copyRows(
    client,
    'billing_documents',
    ['id', 'provider_id', 'subscription_id', 'period_start', 'invoice_id', 'external_document_id'],
    (function* () {
      for (let i = 0; i < N; i += 4)
        yield [uuid(13, i), providerIdOf(providerOf(i)), uuid(11, i), thisMonth.toISOString().slice(0, 10), uuid(12, i * 12), `bd_${i}`];
    })(),
    bar('billing_documents', Math.ceil(N / 4)),
  );

  const autocomplete: string[] = [];
  await copyRows(
    client,
    'coverage_addresses',
    [
      'id',
      'provider_id',
      'building_id',
      'street',
      'house_number',
      'house_number_norm',
      'postal_code',
      'city',
      'province',
      'country',
      'display',
      'search_key',
      'orderable',
    ],
    (function* () {
      for (let a = 0; a < ADDRESSES; a++) {
        // the first buildingsCount rows are the buildings themselves; the rest is the wider coverage index
        const inBuilding = a < buildingsCount;
        const b = inBuilding ? building(a) : building((a % 997) + Math.floor(a / 997) * 6);
        const house = inBuilding ? b.house : `${1 + (a % 250)}${a % 9 === 0 ? pick(['a', 'b', ' A', 'c']) : ''}`;
        const k = coverageKeys({
          street: b.street,
          house_number: house,
          postal_code: b.postal,
          city: b.city,
          country: b.country,
          province: b.province,
        });
        const owner = inBuilding ? providerOfBuilding(a) : 0;
        if (owner === 0 && a % Math.max(1, Math.floor(ADDRESSES / 2000)) === 0) {
          const words = `${b.street} ${house}`;
          autocomplete.push(words.slice(0, Math.max(3, Math.min(words.length, 4 + (a % 12)))));
        }
        yield [
          uuid(14, a),
          providerIdOf(owner),
          inBuilding ? uuid(5, a) : null,
          b.street,
          house,
          k.house_number_norm,
          b.postal,
          b.city,
          b.province,
          b.country,
          k.display,
          k.search_key,
          true,
        ];
      }
    })(),
    bar('coverage_addresses', ADDRESSES),
  );
  await client.query('COMMIT');
  bars.stop();

  process.stderr.write(`rebuilding ${idx.rows.length} indexes ...\n`);
  // The search documents are written from the other tables through their indexes, then indexed.
  const documentIndexes = idx.rows.filter((r) => / ON public\.search_documents /.test(r.indexdef));
  for (const r of idx.rows) if (!documentIndexes.includes(r)) await client.query(r.indexdef);
  await client.query(`SET session_replication_role = DEFAULT`);
  // Statistics first: agent_search_doc's statements are planned once per connection, and on tables
  // never analysed the planner took a customer's subscriptions for 50,000 rows (a parallel hash join
  // over the buildings, compiled by JIT: 300 ms a customer at 10M instead of 0.25 ms).
  await client.query('ANALYZE subscribers, subscriptions, locations, buildings, units');
  await searchDocuments(bar('search_documents', N));
  for (const r of documentIndexes) await client.query(r.indexdef);

  // Verified sessions for the profile and preview scenarios (tokens as the agent surface hashes them).
  const sessions: { customer_id: string; subscription_id: string; token: string }[] = [];
  for (let s = 0; s < SESSIONS; s++) {
    const i = ((s * 4 * 997) % BENCH_N) - (((s * 4 * 997) % BENCH_N) % 4); // a service-billed customer of the bench provider
    const token = `vs_${sha256(`bench-session-${s}`).toString('base64url')}`; // the format the agent surface issues
    sessions.push({ customer_id: uuid(10, i), subscription_id: uuid(11, i), token });
  }
  await client.query(
    `INSERT INTO verified_sessions (id, provider_id, subscriber_id, token_hash, expires_at)
    SELECT gen_random_uuid(), $1, s.cid::uuid, decode(s.h, 'hex'), now() + interval '30 days'
    FROM unnest($2::text[], $3::text[]) AS s(cid, h)`,
    [providerId, sessions.map((s) => s.customer_id), sessions.map((s) => sha256(s.token).toString('hex'))],
  );
  // VACUUM as well as ANALYZE: it sets the visibility map, without which every index-only scan
  // visits the heap (a cluster with autovacuum off would never set it).
  await client.query('VACUUM (ANALYZE)');
  client.release();
  await admin.end();

  writeFileSync(
    args.out,
    JSON.stringify({
      generated_at: new Date().toISOString(),
      customers: N,
      providers: PROVIDERS,
      bench_provider_customers: BENCH_N,
      addresses: ADDRESSES,
      provider_id: providerId,
      api_key: key.secret,
      webhook_secret: whs.secret,
      plan_version_ids: planVersionIds,
      queries,
      sessions,
      autocomplete,
      free_locations: freeLocations,
    }),
  );
  process.stderr.write(
    `loaded ${N} customers (${PROVIDERS} provider${PROVIDERS > 1 ? 's' : ''}, the bench provider ${BENCH_N}) and ${ADDRESSES} addresses in ${Math.round((Date.now() - started) / 1000)} s; wrote ${args.out}\n`,
  );
}

await main();
