// Placeholder until aligned with the serviceability module's own normalisation (see bench/README.md).
export function coverageKeys(a: { street: string; house_number: string; postal_code: string; city: string; country: string }) {
  const house_number_norm = a.house_number.replace(/\s+/g, '').toUpperCase();
  const display = `${a.street} ${a.house_number}, ${a.postal_code} ${a.city}`;
  const search_key = `${a.street} ${house_number_norm} ${a.postal_code} ${a.city}`.toLowerCase().replace(/\s+/g, ' ');
  return { house_number_norm, display, search_key };
}
