import type { Deps } from '../../container.js';
import { notFound, unprocessable } from '../../lib/errors.js';
import { formatCents } from '../../lib/money.js';
import { normalizeHouseNumber, parseFreeTextAddress, postalKey, searchKey, streetVariants } from './address-normalize.js';
import * as repo from './serviceability.repository.js';
import type { CoverageRow } from './serviceability.repository.js';

export const AUTOCOMPLETE_MAX = 15;

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

export function createServiceabilityService(deps: Pick<Deps, 'db'>) {
  const { db } = deps;

  async function autocomplete(providerId: string, q: string, limit = AUTOCOMPLETE_MAX) {
    const key = searchKey(q);
    const n = Math.min(limit, AUTOCOMPLETE_MAX);
    let rows = key.length > 0 ? await repo.autocompletePrefix(db, providerId, key, n) : [];
    if (rows.length === 0 && key.length > 0) rows = await repo.autocompleteFuzzy(db, providerId, key, n);
    return { suggestions: rows.map((r) => ({ display: r.display, ...addressParts(r), orderable: isOrderable(r) })) };
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
    const best = [...candidates].sort((a, b) => score(b) - score(a) || a.id.localeCompare(b.id))[0];
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
    const rows = await repo.unitsWithAvailability(db, buildingId);
    return {
      building_id: buildingId,
      units: rows.map((u) => ({ unit_id: u.id, label: u.label, floor: u.floor, available: Boolean(u.available) })),
    };
  }

  return { autocomplete, check, units };
}

export type ServiceabilityService = ReturnType<typeof createServiceabilityService>;
