import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RawNode, sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOps } from '../../src/cli/ops-program.js';
import { createInventoryImportService } from '../../src/modules/inventory/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const SAMPLES = path.resolve(import.meta.dirname, '../../docs/import-samples');
let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await buildTestApp();
  dir = mkdtempSync(path.join(tmpdir(), 'ops-import-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

async function ops(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runOps(argv, async () => t.services, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err, json: () => JSON.parse(out) };
}
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
async function provider(slug: string) {
  return (await ops('provider', 'create', '--name', slug, '--slug', slug, '--support-email', `help@${slug}.test`, '--json')).json().provider
    .id as string;
}
const count = async (table: 'buildings' | 'units' | 'locations' | 'coverage_addresses', providerId: string) => {
  if (table === 'units') {
    const r = await t.db
      .selectFrom('units')
      .innerJoin('buildings', 'buildings.id', 'units.building_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('buildings.provider_id', '=', providerId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }
  const r = await t.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('provider_id', '=', providerId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
};

describe('inventory import', () => {
  it('imports every sample of docs/import-samples in order; the addresses are then serviceable', async () => {
    const id = await provider('import-samples');
    for (const [kind, n] of [
      ['buildings', 3],
      ['units', 6],
      ['ports', 6],
      ['addresses', 4],
    ] as const) {
      const r = await ops('import', kind, 'import-samples', path.join(SAMPLES, `${kind}.csv`), '--json');
      expect(r.code, r.err).toBe(0);
      expect(r.json()).toMatchObject({ kind, rows: n, committed: true, errors: [], errors_total: 0 });
    }
    expect(await count('buildings', id)).toBe(3);
    expect(await count('units', id)).toBe(6);
    expect(await count('locations', id)).toBe(6);
    // three building addresses, three loose ones (Torstraße 101 is the building's own, linked again)
    expect(await count('coverage_addresses', id)).toBe(6);
    // Each committed import leaves the planner statistics of its table (no autovacuum on the embedded database).
    const analyzed = await sql<{ t: string }>`SELECT DISTINCT tablename AS t FROM pg_stats WHERE schemaname = 'public'
      AND tablename IN ('buildings', 'units', 'locations', 'coverage_addresses') ORDER BY 1`.execute(t.db);
    expect(analyzed.rows.map((r) => r.t)).toEqual(['buildings', 'coverage_addresses', 'locations', 'units']);
    const b = await t.db
      .selectFrom('buildings')
      .selectAll()
      .where('provider_id', '=', id)
      .where('ref', '=', 'B-2001')
      .executeTakeFirstOrThrow();
    expect(b).toMatchObject({
      name: 'Spadina Lofts, Tower B',
      country: 'CA',
      region: 'CA-ON',
      line_type: 'third_line',
      postal_code: 'M5V 2T6',
    });
    const riser = await t.db
      .selectFrom('locations')
      .selectAll()
      .where('location_identifier', '=', 'LID-B2001-RISER')
      .executeTakeFirstOrThrow();
    expect(riser).toMatchObject({ building_id: b.id, unit_id: null, vlan_id: null, location_hash: expect.stringMatching(/^loc_/) });
    const key = (await ops('key', 'issue', 'import-samples', '--scope', 'serviceability:read', '--json')).json().key;
    const check = await t.app.inject({
      method: 'POST',
      url: '/serviceability/check',
      headers: { 'x-api-key': key },
      payload: { address: 'Invalidenstraße 12a, 10115 Berlin' },
    });
    expect(check.statusCode).toBe(200);
    expect(check.json()).toMatchObject({ serviceable: true });
  });

  it('a re-import is idempotent: nothing new, every row updated, ids and location hashes kept', async () => {
    // the provider of the test above (a port identifier is unique across providers)
    const id = (await ops('provider', 'show', 'import-samples', '--json')).json().id;
    const before = await t.db.selectFrom('locations').select(['id', 'location_hash']).where('provider_id', '=', id).orderBy('id').execute();
    for (const [kind, n] of [
      ['buildings', 3],
      ['units', 6],
      ['ports', 6],
      ['addresses', 4],
    ] as const) {
      const r = (await ops('import', kind, 'import-samples', path.join(SAMPLES, `${kind}.csv`), '--json')).json();
      expect(r, kind).toMatchObject({ inserted: 0, updated: n, committed: true });
    }
    expect(
      await t.db.selectFrom('locations').select(['id', 'location_hash']).where('provider_id', '=', id).orderBy('id').execute(),
    ).toEqual(before);
    expect(await count('coverage_addresses', id)).toBe(6);
    // a changed row is updated in place
    const changed = file(
      'b2.csv',
      'ref,street,house_number,postal_code,city,country,line_type\nB-1002,Torstraße,101,10119,Berlin,DE,first_line\n',
    );
    expect((await ops('import', 'buildings', 'import-samples', changed, '--json')).json()).toMatchObject({ inserted: 0, updated: 1 });
    const b = await t.db
      .selectFrom('buildings')
      .select('line_type')
      .where('provider_id', '=', id)
      .where('ref', '=', 'B-1002')
      .executeTakeFirstOrThrow();
    expect(b.line_type).toBe('first_line');
  });

  it('a committed import stays a success when its ANALYZE fails (statistics only speed later reads)', async () => {
    const id = await provider('import-no-analyze');
    // A database whose ANALYZE fails, as one without the table owner's rights or under a lock timeout would.
    const noAnalyze: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (RawNode.is(node) && node.sqlFragments.join('').trimStart().startsWith('ANALYZE')) throw new Error('ANALYZE refused');
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const service = createInventoryImportService({ db: t.db.withPlugin(noAnalyze), clock: t.clock });
    const report = await service.importCsv(id, 'buildings', createReadStream(path.join(SAMPLES, 'buildings.csv')));
    expect(report).toMatchObject({ committed: true, rows: 3, inserted: 3, errors_total: 0 });
    expect(await count('buildings', id)).toBe(3);
  });

  it('--dry-run reports the counts and writes nothing', async () => {
    const id = await provider('import-dry');
    const r = await ops('import', 'buildings', 'import-dry', path.join(SAMPLES, 'buildings.csv'), '--dry-run', '--json');
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ dry_run: true, committed: false, rows: 3, inserted: 3, updated: 0 });
    expect(await count('buildings', id)).toBe(0);
    expect(await count('coverage_addresses', id)).toBe(0);
    const human = await ops('import', 'buildings', 'import-dry', path.join(SAMPLES, 'buildings.csv'), '--dry-run');
    expect(human.out).toBe('buildings: 3 row(s) read; 3 new, 0 updated (dry run: nothing written)\n');
  });

  it('a file with errors imports nothing and reports every problem with line, column and reason (exit 1)', async () => {
    const id = await provider('import-bad');
    const bad = file(
      'bad.csv',
      [
        'ref,street,house_number,postal_code,city,country,line_type,region',
        'G-1,Hauptstraße,1,10115,Berlin,DE,first_line,DE-BE',
        'G-2,Hauptstraße,,10115,Berlin,DE,first_line,DE-BE',
        'G-3,Hauptstraße,3,10115,Berlin,Germany,fourth_line,DE-BE',
        ...Array.from({ length: 600 }, (_, i) => `H-${i},Nebenstraße,${i + 1},10115,Berlin,DE,,`),
        'G-4,Hauptstraße,4,10115,Berlin,DE,,Berlin',
      ].join('\n'),
    );
    const r = await ops('import', 'buildings', 'import-bad', bad, '--json');
    expect(r.code).toBe(1);
    expect(r.json()).toMatchObject({
      committed: false,
      rows: 604,
      errors_total: 4,
      errors: [
        { line: 3, column: 'house_number', reason: 'required' },
        { line: 4, column: 'country', reason: 'at most 2 characters' },
        { line: 4, column: 'line_type', reason: 'one of first_line, second_line, third_line (empty: unclassified)' },
        { line: 605, column: 'region', reason: 'an ISO 3166-2 code, e.g. DE-BE or CA-ON' },
      ],
    });
    expect(await count('buildings', id)).toBe(0);
    const human = await ops('import', 'buildings', 'import-bad', bad);
    expect(human.out).toContain('  line 3, column house_number: required\n');
    expect(human.out).toContain('4 problem(s): nothing was imported; fix the file and run again');
  });

  it('units and ports name buildings and units that exist; a header needs its required columns and no others', async () => {
    await provider('import-refs');
    await ops('import', 'buildings', 'import-refs', path.join(SAMPLES, 'buildings.csv'));
    const units = file('u.csv', 'building_ref,label,floor\nB-1001,1A,1\nB-9999,1A,1\nB-1001,2B,high\n');
    expect((await ops('import', 'units', 'import-refs', units, '--json')).json().errors).toEqual([
      { line: 4, column: 'floor', reason: 'a whole number from -10 to 300' },
      { line: 3, column: 'building_ref', reason: 'no building B-9999 of this provider (import buildings first)' },
    ]);
    const ports = file('p.csv', 'building_ref,unit_label,location_identifier\nB-1001,9Z,LID-X-1\n');
    expect((await ops('import', 'ports', 'import-refs', ports, '--json')).json().errors).toEqual([
      { line: 2, column: 'unit_label', reason: 'no unit 9Z in building B-1001 (import units first)' },
    ]);
    const header = file('h.csv', 'building_ref,floor,colour\nB-1001,1,red\n');
    expect((await ops('import', 'units', 'import-refs', header, '--json')).json().errors).toEqual([
      { line: 1, column: 'label', reason: 'required column missing from the header' },
      { line: 1, column: 'colour', reason: 'unknown column; units has building_ref, label, floor' },
    ]);
    const empty = file('e.csv', '');
    expect((await ops('import', 'units', 'import-refs', empty, '--json')).json().errors).toEqual([
      { line: 1, column: null, reason: 'the file is empty: a header row is required' },
    ]);
    const broken = file('q.csv', 'building_ref,label\nB-1001,"1A\n');
    const r = await ops('import', 'units', 'import-refs', broken, '--json');
    expect(r.code).toBe(1);
    expect(r.json().errors[0].reason).toMatch(/^not valid CSV/);
  });

  it("a port identifier of another provider's port is refused", async () => {
    await provider('import-own');
    await ops('import', 'buildings', 'import-own', path.join(SAMPLES, 'buildings.csv'));
    await ops('import', 'ports', 'import-own', file('p1.csv', 'building_ref,location_identifier\nB-1001,LID-SHARED-1\n'));
    await provider('import-other');
    await ops('import', 'buildings', 'import-other', path.join(SAMPLES, 'buildings.csv'));
    const r = await ops(
      'import',
      'ports',
      'import-other',
      file('p2.csv', 'building_ref,location_identifier\nB-1001,LID-SHARED-1\n'),
      '--json',
    );
    expect(r.json().errors).toEqual([
      { line: 2, column: 'location_identifier', reason: 'this identifier belongs to a port of another provider' },
    ]);
  });
});
