import { coverageColumns } from '../src/modules/serviceability/address-normalize.js';

/** The coverage columns exactly as the serviceability module derives them (search keys must agree). */
export function coverageKeys(a: {
  street: string;
  house_number: string;
  postal_code: string;
  city: string;
  country: string;
  province?: string | null;
}) {
  const c = coverageColumns({
    street: a.street,
    houseNumber: a.house_number,
    postalCode: a.postal_code,
    city: a.city,
    province: a.province ?? null,
    country: a.country,
  });
  return { house_number_norm: c.house_number_norm, display: c.display, search_key: c.search_key };
}
