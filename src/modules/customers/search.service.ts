import { LRUCache } from 'lru-cache';
import type { Deps } from '../../container.js';
import { AppError, isStatementTimeout } from '../../lib/errors.js';
import { maskEmail, maskName, maskPhone } from '../../lib/mask.js';
import { formatAddress, maskCustomerNumber } from './customers.format.js';
import { planSearch, structuredProbes } from './search.query.js';
import { probeCustomers, providerRegions, searchCustomers, serviceLocationsOf, type MatchRow, type ServiceLocationRow } from './search.repository.js';

export type SubscriptionStatus = 'PENDING' | 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED';

export interface MaskedMatch {
  customer_id: string;
  name_masked: string;
  email_masked: string | null;
  phone_masked: string | null;
  customer_number_masked: string | null;
  service_locations: { address: string | null; unit_label: string | null; subscription_status: SubscriptionStatus }[];
}

/** Only a query with a run of 6+ digits can hold a phone number (the provider's countries read it). */
const mayHoldPhone = (q: string) => (q.match(/\d/g)?.length ?? 0) >= 6;

function masked(r: MatchRow, locations: ServiceLocationRow[]): MaskedMatch {
  const seen = new Set<string>();
  const service_locations = locations
    .map((l) => ({ address: formatAddress(l), unit_label: l.unit_label, subscription_status: l.status as SubscriptionStatus }))
    .filter((l) => {
      const k = `${l.address}|${l.unit_label}|${l.subscription_status}`;
      return seen.has(k) ? false : (seen.add(k), true);
    });
  return {
    customer_id: r.id,
    name_masked: maskName(r.first_name, r.last_name),
    email_masked: maskEmail(r.email),
    phone_masked: maskPhone(r.phone),
    customer_number_masked: maskCustomerNumber(r.customer_number),
    service_locations,
  };
}

/** How long the countries a provider serves are reused for reading phone numbers (ms). */
export const REGIONS_TTL_MS = 60_000;

export function createCustomerSearchService({ db, config, log }: Pick<Deps, 'db' | 'config' | 'log'>) {
  // The countries a provider serves change when it gets its first building in a new country: a
  // phone search reuses them for a minute, and reads them again before answering "no match".
  const regionsCache = new LRUCache<string, string[]>({ max: 1000, ttl: REGIONS_TTL_MS });
  async function regionsOf(providerId: string, fresh = false) {
    let regions = fresh ? undefined : regionsCache.get(providerId);
    if (!regions) regionsCache.set(providerId, (regions = await providerRegions(db, providerId)));
    return regions;
  }

  /**
   * Masked search within one provider, in up to three passes, each only when the one before found
   * nothing: the probes (one statement: the query read as a phone, email, customer number, name,
   * address or name plus place), every word against every field, then trigrams (typos and
   * substrings). `match_count` counts every match of the pass that answered.
   */
  async function search(providerId: string, q: string, limit: number) {
    const phone = mayHoldPhone(q);
    let regions = phone ? await regionsOf(providerId) : ['DE'];
    let plan = planSearch(q, regions);
    let first = await firstPass(providerId, plan, limit);
    if (first.total === 0 && phone) {
      // Nothing found with the cached countries: read them again; search again if they changed.
      const now = await regionsOf(providerId, true);
      if (now.join() !== regions.join()) {
        regions = now;
        plan = planSearch(q, regions);
        first = await firstPass(providerId, plan, limit);
      }
    }
    if (first.total > 0 || plan.kind !== 'tokens') {
      return { ambiguous: first.total > 1, match_count: first.total, matches: first.rows.map((r) => masked(r, r.service_locations)) };
    }
    let found = await searchCustomers(db, providerId, plan, limit, false);
    if (found.total === 0) found = await fuzzyPass(providerId, plan, limit);
    const locations = await serviceLocationsOf(db, found.rows.map((r) => r.id));
    const matches = found.rows.map((r) => masked(r, locations.filter((l) => l.subscriber_id === r.id)));
    return { ambiguous: found.total > 1, match_count: found.total, matches };
  }

  /**
   * Typo-tolerant matching, bounded by SEARCH_FUZZY_TIMEOUT_MS per statement: short common words
   * ("Hans Hamburg" when no Hans lives in Hamburg) can make it read most of the table for seconds.
   * Past the bound the caller is asked for a more telling detail instead.
   */
  async function fuzzyPass(providerId: string, plan: ReturnType<typeof planSearch>, limit: number) {
    try {
      return await searchCustomers(db, providerId, plan, limit, true, config.SEARCH_FUZZY_TIMEOUT_MS);
    } catch (err) {
      if (!isStatementTimeout(err)) throw err;
      log.info({ timeout_ms: config.SEARCH_FUZZY_TIMEOUT_MS, words: plan.kind === 'tokens' ? plan.tokens.length : 0 }, 'search: fuzzy pass stopped at its time bound');
      throw new AppError(422, 'search_too_broad',
        'Nothing matches these words exactly or as a prefix, and the typo-tolerant search for them is too broad to finish: ' +
          'add a more telling detail (street and house number, unit, email, phone or customer number) and search again');
    }
  }

  async function firstPass(providerId: string, plan: ReturnType<typeof planSearch>, limit: number) {
    const probes = structuredProbes(plan);
    return probes.length ? probeCustomers(db, providerId, probes, limit) : { rows: [], total: 0 };
  }

  return { search };
}

export type CustomerSearchService = ReturnType<typeof createCustomerSearchService>;
