import type { Deps } from '../../container.js';
import { maskEmail, maskName, maskPhone } from '../../lib/mask.js';
import { formatAddress, maskCustomerNumber } from './customers.format.js';
import { planSearch } from './search.query.js';
import { providerRegions, searchCustomers, serviceLocationsOf } from './search.repository.js';

export type SubscriptionStatus = 'PENDING' | 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED';

export interface MaskedMatch {
  customer_id: string;
  name_masked: string;
  email_masked: string | null;
  phone_masked: string | null;
  customer_number_masked: string | null;
  service_locations: { address: string | null; unit_label: string | null; subscription_status: SubscriptionStatus }[];
}

export function createCustomerSearchService({ db }: Pick<Deps, 'db'>) {
  /**
   * Masked search within one provider. Prefix ranges first; when they find nothing, the same
   * tokens again with trigram matching (substrings and typos).
   */
  async function search(providerId: string, q: string, limit: number) {
    const plan = planSearch(q, await providerRegions(db, providerId));
    let found = await searchCustomers(db, providerId, plan, limit, false);
    if (found.total === 0 && plan.kind === 'tokens') found = await searchCustomers(db, providerId, plan, limit, true);
    const locations = await serviceLocationsOf(db, found.rows.map((r) => r.id));
    const matches: MaskedMatch[] = found.rows.map((r) => {
      const seen = new Set<string>();
      const service_locations = locations
        .filter((l) => l.subscriber_id === r.id)
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
    });
    return { ambiguous: found.total > 1, match_count: found.total, matches };
  }

  return { search };
}

export type CustomerSearchService = ReturnType<typeof createCustomerSearchService>;
