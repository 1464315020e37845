// The inventory import (npm run ops -- import <kind> <provider> <file>; docs/import.md): a CSV file of
// buildings, units, switch ports or coverage addresses, streamed, checked row by row and upserted by
// its natural key in batches inside ONE transaction. A file with any error writes nothing (the
// transaction rolls back) and answers every problem found (line, column, reason); --dry-run does
// the whole import and rolls it back, so its counts are exact.
import type { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { DB } from '../../db/types.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { newId, randomToken } from '../../lib/ids.js';
import { coverageColumns } from '../serviceability/index.js';
import { checkHeader, checkRow, KINDS, type AddressRow, type Kind, type RowError, type RowOf } from './inventory.formats.js';
import * as repo from './inventory.repository.js';

export interface InventoryDeps {
  db: Db;
  clock: Clock;
}

export interface ImportReport {
  kind: Kind;
  provider_id: string;
  dry_run: boolean;
  /** Written and committed: false after a dry run or when the file had errors. */
  committed: boolean;
  rows: number;
  inserted: number;
  updated: number;
  /** The first MAX_REPORTED problems; errors_total counts them all. */
  errors: RowError[];
  errors_total: number;
}

const MAX_REPORTED = 1000;
const BATCH: Record<Kind, number> = { buildings: 500, units: 2000, ports: 1000, addresses: 2000 };

class RolledBack extends Error {}

type Batch<K extends Kind> = { line: number; row: RowOf<K> }[];

export function createInventoryImportService({ db }: InventoryDeps) {
  async function importCsv(
    providerId: string,
    kind: Kind,
    input: Readable | AsyncIterable<string | Buffer>,
    opts: { dryRun?: boolean; onProgress?: (rows: number) => void } = {},
  ): Promise<ImportReport> {
    if (!KINDS.includes(kind)) throw new AppError(422, 'validation_error', `kind: one of ${KINDS.join(', ')}`);
    const report: ImportReport = {
      kind,
      provider_id: providerId,
      dry_run: Boolean(opts.dryRun),
      committed: false,
      rows: 0,
      inserted: 0,
      updated: 0,
      errors: [],
      errors_total: 0,
    };
    const fail = (errors: RowError[]) => {
      report.errors_total += errors.length;
      for (const e of errors) if (report.errors.length < MAX_REPORTED) report.errors.push(e);
    };
    try {
      await db.transaction().execute(async (trx) => {
        await repo.lockProviderInventory(trx, providerId);
        const write = writer(trx, providerId, kind, report, fail);
        let batch: Batch<Kind> = [];
        let header: string[] | null = null;
        const parser = parse({
          bom: true,
          trim: true,
          skip_empty_lines: true,
          info: true,
          columns: (h: string[]) => (header = h.map((c) => c.trim().toLowerCase())),
        });
        if ('pipe' in input) input.pipe(parser);
        else void feed(input, parser);
        try {
          for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
            if (report.rows === 0 && header) {
              const problems = checkHeader(kind, header);
              if (problems.length) {
                fail(problems);
                break;
              }
            }
            report.rows++;
            const { row, errors } = checkRow(kind, record, info.lines);
            if (errors.length) fail(errors);
            else batch.push({ line: info.lines, row: row! });
            if (batch.length >= BATCH[kind]) {
              await write(batch);
              batch = [];
              opts.onProgress?.(report.rows);
            }
          }
        } catch (err) {
          if (!(err instanceof CsvError)) throw err;
          fail([
            {
              line: (err as CsvError & { lines?: number }).lines ?? report.rows + 1,
              column: null,
              reason: `not valid CSV: ${err.message}`,
            },
          ]);
        }
        if (header === null && report.errors_total === 0)
          fail([{ line: 1, column: null, reason: 'the file is empty: a header row is required' }]);
        if (batch.length) await write(batch);
        opts.onProgress?.(report.rows);
        if (report.errors_total > 0 || opts.dryRun) throw new RolledBack();
      });
      report.committed = true;
      // Statistics only speed later reads: a failed ANALYZE never turns a committed import into an error.
      if (report.inserted + report.updated > 0) await repo.analyzeImported(db, kind).catch(() => undefined);
    } catch (err) {
      if (!(err instanceof RolledBack)) throw err;
    }
    return report;
  }

  return { importCsv };
}

export type InventoryImportService = ReturnType<typeof createInventoryImportService>;

async function feed(input: AsyncIterable<string | Buffer>, parser: NodeJS.WritableStream) {
  for await (const chunk of input) parser.write(chunk);
  parser.end();
}

type Trx = Parameters<Parameters<ReturnType<Db['transaction']>['execute']>[0]>[0];

/**
 * The batch writer of one kind. After the first error nothing more is written (the transaction
 * rolls back anyway), but rows are still checked against the database, so the report is whole.
 */
function writer(trx: Trx, providerId: string, kind: Kind, report: ImportReport, fail: (e: RowError[]) => void) {
  const writing = () => report.errors_total === 0;

  async function buildingsOf(batch: Batch<'units' | 'ports' | 'addresses'>) {
    const refs = [...new Set(batch.map((b) => b.row.building_ref).filter((r): r is string => Boolean(r)))];
    const ids = await repo.buildingIdsByRef(trx, providerId, refs);
    const missing = batch.filter((b) => b.row.building_ref && !ids.has(b.row.building_ref));
    fail(
      missing.map((b) => ({
        line: b.line,
        column: 'building_ref',
        reason: `no building ${b.row.building_ref} of this provider (import buildings first)`,
      })),
    );
    return { ids, ok: batch.filter((b) => !b.row.building_ref || ids.has(b.row.building_ref)) };
  }

  async function upsertAddresses(items: { line: number; row: AddressRow; buildingId: string | null; orderable: boolean }[]) {
    // One row per search key in a batch: a later line wins, as a re-import would.
    const byKey = new Map<string, Omit<Insertable<DB['coverage_addresses']>, 'id'>>();
    for (const it of items) {
      const cols = coverageColumns({
        street: it.row.street,
        houseNumber: it.row.house_number,
        postalCode: it.row.postal_code,
        city: it.row.city,
        province: it.row.province,
        country: it.row.country,
      });
      byKey.set(cols.search_key, {
        provider_id: providerId,
        building_id: it.buildingId,
        street: it.row.street.replace(/\s+/g, ' '),
        house_number: it.row.house_number,
        city: it.row.city,
        province: it.row.province,
        ...cols,
        orderable: it.orderable,
      });
    }
    const existing = await repo.coverageBySearchKey(trx, providerId, [...byKey.keys()]);
    const idsByKey = new Map<string, string[]>();
    for (const e of existing) idsByKey.set(e.search_key, [...(idsByKey.get(e.search_key) ?? []), e.id]);
    const inserts: Insertable<DB['coverage_addresses']>[] = [];
    const updates: Parameters<typeof repo.updateCoverage>[1] = [];
    for (const [key, row] of byKey) {
      const ids = idsByKey.get(key);
      if (ids) for (const id of ids) updates.push({ ...row, id });
      else inserts.push({ ...row, id: newId() });
    }
    await repo.insertCoverage(trx, inserts);
    await repo.updateCoverage(trx, updates);
    return { inserted: inserts.length, updated: byKey.size - inserts.length };
  }

  return async (batch: Batch<Kind>) => {
    if (kind === 'buildings') {
      if (!writing()) return;
      const b = batch as Batch<'buildings'>;
      const rows = b.map(({ row }) => ({
        id: newId(),
        provider_id: providerId,
        ref: row.ref,
        name: row.name,
        street: row.street,
        house_number: row.house_number,
        postal_code: row.postal_code,
        city: row.city,
        province: row.province,
        country: row.country,
        region: row.region,
        line_type: row.line_type,
        in_coverage: row.in_coverage,
      }));
      const { ids, updated } = await repo.upsertBuildings(
        trx,
        dedupe(rows, (r) => r.ref),
      );
      report.inserted += ids.size - updated;
      report.updated += updated;
      // Each building is in coverage at its own address, orderable while in_coverage.
      await upsertAddresses(
        b.map(({ line, row }) => ({
          line,
          row: { ...row, building_ref: row.ref },
          buildingId: ids.get(row.ref)!,
          orderable: row.in_coverage,
        })),
      );
      return;
    }
    if (kind === 'addresses') {
      const { ids, ok } = await buildingsOf(batch as Batch<'addresses'>);
      if (!writing()) return;
      const r = await upsertAddresses(
        (ok as Batch<'addresses'>).map(({ line, row }) => {
          const buildingId = row.building_ref ? ids.get(row.building_ref)! : null;
          return { line, row, buildingId, orderable: buildingId !== null };
        }),
      );
      report.inserted += r.inserted;
      report.updated += r.updated;
      return;
    }
    if (kind === 'units') {
      const { ids, ok } = await buildingsOf(batch as Batch<'units'>);
      const rows = dedupe(
        (ok as Batch<'units'>).map(({ row }) => ({
          id: newId(),
          building_id: ids.get(row.building_ref)!,
          label: row.label,
          floor: row.floor,
        })),
        (r) => `${r.building_id}/${r.label}`,
      );
      const before = new Set(
        (await repo.unitsOf(trx, [...new Set(rows.map((r) => r.building_id))])).map((u) => `${u.building_id}/${u.label}`),
      );
      if (!writing() || rows.length === 0) return;
      await repo.upsertUnits(trx, rows);
      const updated = rows.filter((r) => before.has(`${r.building_id}/${r.label}`)).length;
      report.inserted += rows.length - updated;
      report.updated += updated;
      return;
    }
    // ports
    const { ids, ok } = await buildingsOf(batch as Batch<'ports'>);
    const ports = ok as Batch<'ports'>;
    const units = await repo.unitsOf(trx, [...ids.values()]);
    const unitId = new Map(units.map((u) => [`${u.building_id}/${u.label}`, u.id]));
    const owners = new Map(
      (
        await repo.portsByIdentifier(
          trx,
          ports.map((p) => p.row.location_identifier),
        )
      ).map((p) => [p.location_identifier, p.provider_id]),
    );
    const rows: Insertable<DB['locations']>[] = [];
    for (const { line, row } of ports) {
      const buildingId = ids.get(row.building_ref)!;
      const unit = row.unit_label ? unitId.get(`${buildingId}/${row.unit_label}`) : null;
      if (row.unit_label && !unit) {
        fail([{ line, column: 'unit_label', reason: `no unit ${row.unit_label} in building ${row.building_ref} (import units first)` }]);
        continue;
      }
      const owner = owners.get(row.location_identifier);
      if (owner && owner !== providerId) {
        fail([{ line, column: 'location_identifier', reason: 'this identifier belongs to a port of another provider' }]);
        continue;
      }
      rows.push({
        id: newId(),
        provider_id: providerId,
        building_id: buildingId,
        unit_id: unit ?? null,
        location_hash: `loc_${randomToken(16)}`,
        location_identifier: row.location_identifier,
        switch_id: row.switch_id,
        switch_port: row.switch_port,
        vlan_id: row.vlan_id,
      });
    }
    const unique = dedupe(rows, (r) => r.location_identifier);
    if (!writing() || unique.length === 0) return;
    await repo.upsertPorts(trx, unique);
    const updated = unique.filter((r) => owners.has(r.location_identifier)).length;
    report.inserted += unique.length - updated;
    report.updated += updated;
  };
}

/** The last row of each key (a later line of a file wins, as a re-import would). */
function dedupe<T>(rows: T[], key: (r: T) => string): T[] {
  return [...new Map(rows.map((r) => [key(r), r])).values()];
}
