import type { Deps } from '../../container.js';
import { maskEmail, maskName, maskPhone } from '../../lib/mask.js';
import { formatAddress, maskCustomerNumber } from './customers.format.js';
import { planSearch, structuredProbes } from './search.query.js';
import { probeCustomers, providerRegions, searchCustomers, serviceLocationsOf, type ServiceLocationRow } from './search.repository.js';

export type SubscriptionStatus = 'PENDING' | 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED';

export interface MaskedMatch {
  customer_id: string;
  name_masked: string;
  email_masked: string | null;
  phone_masked: string | null;
  customer_number_masked: string | null;
  service_locations: { address: string | null; unit_label: string | null; subscription_status: SubscriptionStatus }[];
}

interface Row {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  customer_number: string | null;
}

/** Only a query with a run of 6+ digits can hold a phone number (the provider's countries read it). */
const mayHoldPhone = (q: string) => (q.match(/\d/g)?.length ?? 0) >= 6;

function masked(r: Row, locations: ServiceLocationRow[]): MaskedMatch {
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

export function createCustomerSearchService({ db }: Pick<Deps, 'db'>) {
  /**
   * Masked search within one provider, in up to three passes, each only when the one before found
   * nothing: the probes (one statement: the query read as a phone, email, customer number, name,
   * address or name plus place), every word against every field, then trigrams (typos and
   * substrings). `match_count` counts every match of the pass that answered.
   */
  async function search(providerId: string, q: string, limit: number) {
    const plan = planSearch(q, mayHoldPhone(q) ? await providerRegions(db, providerId) : ['DE']);
    const probes = structuredProbes(plan);
    if (probes.length) {
      const first = await probeCustomers(db, providerId, probes, limit);
      if (first.total > 0 || plan.kind !== 'tokens') {
        return { ambiguous: first.total > 1, match_count: first.total, matches: first.rows.map((r) => masked(r, r.service_locations)) };
      }
    }
    if (plan.kind !== 'tokens') return { ambiguous: false, match_count: 0, matches: [] };
    let found = await searchCustomers(db, providerId, plan, limit, false);
    if (found.total === 0) found = await searchCustomers(db, providerId, plan, limit, true);
    const locations = await serviceLocationsOf(db, found.rows.map((r) => r.id));
    const matches = found.rows.map((r) => masked(r, locations.filter((l) => l.subscriber_id === r.id)));
    return { ambiguous: found.total > 1, match_count: found.total, matches };
  }

  return { search };
}

export type CustomerSearchService = ReturnType<typeof createCustomerSearchService>;
