// Writes of the inventory import: buildings, units, switch ports (locations) and coverage
// addresses, a batch at a time, inside the import's one transaction. The import owns these writes;
// the serviceability, locations and install modules read the rows.
import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import { present } from '../../lib/present.js';

type Trx = Transaction<DB>;

/** One import per provider at a time (a second waits): two imports of one file cannot race to insert the same keys. */
export async function lockProviderInventory(trx: Trx, providerId: string) {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`inventory:${providerId}`}))`.execute(trx);
}

const TABLE_OF_KIND = { buildings: 'buildings', units: 'units', ports: 'locations', addresses: 'coverage_addresses' } as const;

/**
 * Fresh planner statistics for the table a committed import wrote: the embedded database has no
 * autovacuum, and on Postgres it would come a minute or more later, while the next autocomplete or
 * serviceability read of a table that grew from nothing plans as if it were empty.
 */
export async function analyzeImported(db: Kysely<DB>, kind: keyof typeof TABLE_OF_KIND) {
  await sql`ANALYZE ${sql.table(TABLE_OF_KIND[kind])}`.execute(db);
}

export async function buildingIdsByRef(trx: Trx, providerId: string, refs: string[]) {
  if (refs.length === 0) return new Map<string, string>();
  const rows = await trx
    .selectFrom('buildings')
    .select(['id', 'ref'])
    .where('provider_id', '=', providerId)
    .where('ref', 'in', refs)
    .execute();
  return new Map(rows.map((r) => [r.ref!, r.id]));
}

/** Inserts or updates buildings by (provider, ref); answers ref → id and how many existed. */
export async function upsertBuildings(trx: Trx, rows: Insertable<DB['buildings']>[]) {
  const existing = await buildingIdsByRef(
    trx,
    present(rows[0], 'a building to upsert').provider_id,
    rows.map((r) => r.ref!),
  );
  const out = await trx
    .insertInto('buildings')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['provider_id', 'ref'])
        .where('ref', 'is not', null)
        .doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          street: eb.ref('excluded.street'),
          house_number: eb.ref('excluded.house_number'),
          postal_code: eb.ref('excluded.postal_code'),
          city: eb.ref('excluded.city'),
          province: eb.ref('excluded.province'),
          country: eb.ref('excluded.country'),
          region: eb.ref('excluded.region'),
          line_type: eb.ref('excluded.line_type'),
          in_coverage: eb.ref('excluded.in_coverage'),
        })),
    )
    .returning(['id', 'ref'])
    .execute();
  return { ids: new Map(out.map((r) => [r.ref!, r.id])), updated: existing.size };
}

export async function unitsOf(trx: Trx, buildingIds: string[]) {
  if (buildingIds.length === 0) return [];
  return trx.selectFrom('units').select(['id', 'building_id', 'label']).where('building_id', 'in', buildingIds).execute();
}

export async function upsertUnits(trx: Trx, rows: Insertable<DB['units']>[]) {
  await trx
    .insertInto('units')
    .values(rows)
    .onConflict((oc) => oc.columns(['building_id', 'label']).doUpdateSet((eb) => ({ floor: eb.ref('excluded.floor') })))
    .execute();
}

/** The ports among these identifiers, with their provider (another provider's answers a row error). */
export async function portsByIdentifier(trx: Trx, identifiers: string[]) {
  if (identifiers.length === 0) return [];
  return trx
    .selectFrom('locations')
    .select(['location_identifier', 'provider_id'])
    .where('location_identifier', 'in', identifiers)
    .execute();
}

/** By location_identifier; a re-import keeps the port's id and location_hash (the captive-portal id). */
export async function upsertPorts(trx: Trx, rows: Insertable<DB['locations']>[]) {
  await trx
    .insertInto('locations')
    .values(rows)
    .onConflict((oc) =>
      oc.column('location_identifier').doUpdateSet((eb) => ({
        building_id: eb.ref('excluded.building_id'),
        unit_id: eb.ref('excluded.unit_id'),
        switch_id: eb.ref('excluded.switch_id'),
        switch_port: eb.ref('excluded.switch_port'),
        vlan_id: eb.ref('excluded.vlan_id'),
      })),
    )
    .execute();
}

/** Coverage rows of the provider with these search keys (the index is on search_key COLLATE "C"). */
export async function coverageBySearchKey(trx: Trx, providerId: string, keys: string[]) {
  if (keys.length === 0) return [];
  return trx
    .selectFrom('coverage_addresses')
    .select(['id', 'search_key'])
    .where('provider_id', '=', providerId)
    .where(sql<boolean>`search_key COLLATE "C" = ANY(${sql.val(keys)}::text[])`)
    .execute();
}

export async function insertCoverage(trx: Trx, rows: Insertable<DB['coverage_addresses']>[]) {
  if (rows.length) await trx.insertInto('coverage_addresses').values(rows).execute();
}

type CoverageUpdate = Omit<Insertable<DB['coverage_addresses']>, 'provider_id'> & { id: string };

/** Rewrites existing coverage rows in one statement (UPDATE … FROM VALUES). */
export async function updateCoverage(trx: Trx, rows: CoverageUpdate[]) {
  if (rows.length === 0) return;
  const values = sql.join(
    rows.map(
      (r) =>
        sql`(${r.id}::uuid, ${r.building_id ?? null}::uuid, ${r.street}, ${r.house_number}, ${r.house_number_norm}, ${r.postal_code ?? null}, ${r.city ?? null}, ${r.province ?? null}, ${r.country}, ${r.display}, ${r.search_key}, ${r.orderable ?? true}::boolean)`,
    ),
  );
  // An address without a building keeps the building an earlier import linked it to (and its orderability).
  await sql`UPDATE coverage_addresses c SET building_id = COALESCE(v.building_id, c.building_id), street = v.street,
      house_number = v.house_number, house_number_norm = v.house_number_norm, postal_code = v.postal_code, city = v.city,
      province = v.province, country = v.country, display = v.display, search_key = v.search_key,
      orderable = CASE WHEN v.building_id IS NULL THEN c.orderable ELSE v.orderable END
    FROM (VALUES ${values}) AS v(id, building_id, street, house_number, house_number_norm, postal_code, city, province, country, display, search_key, orderable)
    WHERE c.id = v.id`.execute(trx);
}
