import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { isoDate } from '../../lib/dates.js';
import { notFound, unprocessable } from '../../lib/errors.js';
import { formatCents } from '../../lib/money.js';
import { normalizeHouseNumber, parseFreeTextAddress, postalKey, searchKey, streetVariants } from './address-normalize.js';
import * as repo from './serviceability.repository.js';
import type { CoverageRow, PrefixRow } from './serviceability.repository.js';
import { present } from '../../lib/present.js';

const AUTOCOMPLETE_MAX = 15;
/**
 * Rows asked per source beyond the suggestions wanted: duplicate displays ("12a" and "12 A" rows of
 * one address) are rare, and a page short of displays is asked again, four times larger.
 */
const FETCH_SLACK = 5;
/** Never more rows than this per source for one answer. */
const FETCH_MAX = 2_000;

/** The first row of each display string, in order, at most `n`. */
function firstPerDisplay<T extends { display: string }>(rows: T[], n: number): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const r of rows) {
    if (seen.has(r.display)) continue;
    seen.add(r.display);
    out.push(r);
    if (out.length === n) break;
  }
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Within one key: by display, and the row that represents a display first (orderable, with a building, lowest id). */
const representativeOrder = (a: CoverageRow, b: CoverageRow) =>
  cmp(a.display, b.display) ||
  Number(b.orderable) - Number(a.orderable) ||
  Number(a.building_id === null) - Number(b.building_id === null) ||
  cmp(a.id, b.id);

/**
 * One suggestion per display from the prefix candidates (autocompletePrefix: each source in key
 * order, at most `fetch` rows, the rows of one key in no particular order). A source that filled its
 * page may have been cut inside its last key, so that key's rows are dropped (unless `final`), and
 * nothing after it can be trusted: `cut` tells the caller that a larger page could change the answer.
 */
export function pickPrefixSuggestions(rows: PrefixRow[], fetch: number, n: number, final: boolean): { picked: PrefixRow[]; cut: boolean } {
  const ordered: PrefixRow[] = [];
  let cut = false;
  for (const src of [0, 1]) {
    let part = rows.filter((r) => r.src === src);
    if (part.length >= fetch) {
      cut = true;
      if (!final) {
        const lastKey = present(part.at(-1), 'the last row of a full page').k;
        part = part.filter((r) => r.k !== lastKey);
      }
    }
    for (let i = 0; i < part.length;) {
      let j = i + 1;
      while (j < part.length && part[j]?.k === part[i]?.k) j++;
      if (j - i === 1) ordered.push(...part.slice(i, j));
      else ordered.push(...part.slice(i, j).sort(representativeOrder));
      i = j;
    }
    if (cut) break;
  }
  return { picked: firstPerDisplay(ordered, n), cut };
}

export interface CheckInput {
  address?: string;
  street?: string;
  house_number?: string;
  postal_code?: string;
  city?: string;
  province?: string;
  country?: string;
}

const addressParts = (r: CoverageRow) => ({
  building_id: r.building_id,
  street: r.street,
  house_number: r.house_number,
  postal_code: r.postal_code,
  city: r.city,
  province: r.province,
  country: r.country,
});

/** Orderable means: the coverage row says so and it leads to a building that is in coverage. */
const isOrderable = (r: CoverageRow) => r.orderable && r.building_id !== null && r.building_in_coverage === true;

export interface ServiceabilityDeps {
  db: Db;
  clock: Clock;
}

export function createServiceabilityService(deps: ServiceabilityDeps) {
  const { db, clock } = deps;

  /**
   * Prefix ranges first (the display, then the street-first spelling of CA/US addresses), the
   * trigram similarity only when nothing starts with the text. No query deduplicates (a DISTINCT
   * ON display defeats the LIMIT's early stop): one row per display is picked here, and a page too
   * full to be sure of is asked again, larger.
   */
  async function autocomplete(providerId: string, q: string, limit = AUTOCOMPLETE_MAX) {
    const key = searchKey(q);
    const n = Math.min(limit, AUTOCOMPLETE_MAX);
    if (key.length === 0) return { suggestions: [] };
    let rows: CoverageRow[];
    for (let fetch = n + FETCH_SLACK; ; fetch = Math.min(fetch * 4, FETCH_MAX)) {
      const final = fetch >= FETCH_MAX;
      const { picked, cut } = pickPrefixSuggestions(await repo.autocompletePrefix(db, providerId, key, fetch), fetch, n, final);
      rows = picked;
      if (picked.length >= n || !cut || final) break;
    }
    if (rows.length === 0) {
      // Fully ordered (score, display, representative first): the first row of each display is its representative.
      for (let fetch = n + FETCH_SLACK; ; fetch = Math.min(fetch * 4, FETCH_MAX)) {
        const page = await repo.autocompleteFuzzy(db, providerId, key, fetch);
        rows = firstPerDisplay(page, n);
        if (rows.length >= n || page.length < fetch || fetch >= FETCH_MAX) break;
      }
    }
    return {
      suggestions: rows.map((r) => ({
        display: r.display,
        ...addressParts(r),
        orderable: isOrderable(r),
      })),
    };
  }

  /** Structured fields win over free text; the house number must match exactly (suffix included). */
  async function check(providerId: string, input: CheckInput) {
    const structured = Boolean(input.street?.trim());
    if (!structured && !input.address?.trim()) throw unprocessable('Provide address or street');

    let streets: string[];
    let houseNumber: string | null;
    let postal: string | null;
    let locality: string;
    let country: string | null;
    if (structured) {
      const parsedStreet = input.house_number?.trim() ? null : parseFreeTextAddress(input.street!);
      streets = parsedStreet ? parsedStreet.streetCandidates : streetVariants(input.street!);
      houseNumber = input.house_number?.trim() ? normalizeHouseNumber(input.house_number) : parsedStreet!.houseNumber;
      postal = input.postal_code?.trim() || null;
      locality = (input.city ?? '').trim().toLowerCase();
      country = input.country?.toUpperCase() ?? null;
    } else {
      const p = parseFreeTextAddress(input.address!);
      streets = p.streetCandidates;
      houseNumber = p.houseNumber;
      postal = p.postalCode;
      locality = p.locality;
      country = p.country;
    }

    const none = { serviceable: false, match: null, plans: [], building_id: null };
    if (!houseNumber || streets.length === 0) return none;
    const wantedPostal = postal ? postalKey(postal) : null;
    const candidates = (await repo.findCoverageMatches(db, providerId, streets, houseNumber)).filter(
      (r) => (!wantedPostal || !r.postal_code || postalKey(r.postal_code) === wantedPostal) && (!country || r.country === country),
    );
    if (candidates.length === 0) return none;
    const score = (r: CoverageRow) =>
      (wantedPostal && r.postal_code && postalKey(r.postal_code) === wantedPostal ? 16 : 0) +
      (locality && r.city && locality.includes(r.city.toLowerCase()) ? 8 : 0) +
      (isOrderable(r) ? 4 : 0) +
      (r.building_id ? 2 : 0) +
      r.street.length / 1000;
    const [best] = [...candidates].sort((a, b) => score(b) - score(a) || a.id.localeCompare(b.id));
    if (!best) return none;
    const serviceable = isOrderable(best);
    const plans = serviceable ? await repo.activePlanVersions(db, providerId) : [];
    return {
      serviceable,
      match: { display: best.display, ...addressParts(best), orderable: best.orderable },
      plans: plans.map((p) => ({
        plan_version_id: p.id,
        name: p.name,
        monthly_price: formatCents(p.monthly_price_cents),
        currency: p.currency,
        download_mbps: p.download_mbps,
        upload_mbps: p.upload_mbps,
        store_product_id: p.store_product_id,
      })),
      building_id: best.building_id,
    };
  }

  async function units(providerId: string, buildingId: string) {
    const building = await repo.findCoveredBuilding(db, providerId, buildingId);
    if (!building) throw notFound('Building not found or not in coverage');
    const rows = await repo.unitsWithAvailability(db, buildingId, isoDate(clock.now()));
    return {
      building_id: buildingId,
      units: rows.map((u) => ({ unit_id: u.id, label: u.label, floor: u.floor, available: Boolean(u.available) })),
    };
  }

  return { autocomplete, check, units };
}

/** @public The type of what the container builds. */
export type ServiceabilityService = ReturnType<typeof createServiceabilityService>;
