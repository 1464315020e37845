// Presentation helpers shared by the customer reads and the search (no I/O).

export interface AddressParts {
  street: string | null;
  house_number: string | null;
  postal_code: string | null;
  city: string | null;
  country?: string | null;
}

/** "Hauptstraße 5, 10115 Berlin" (parts that are missing are left out). */
export function formatAddress(a: AddressParts): string | null {
  const line1 = [a.street, a.house_number].filter(Boolean).join(' ');
  const line2 = [a.postal_code, a.city].filter(Boolean).join(' ');
  const s = [line1, line2].filter(Boolean).join(', ');
  return s.length ? s : null;
}

/** "****-**34": enough for a caller to recognise their account number, not to learn it. */
export function maskCustomerNumber(n: string | null): string | null {
  if (!n) return null;
  return `****-**${n.slice(-2)}`;
}

export const iso = (d: Date | string | null | undefined): string | null => (d == null ? null : new Date(d).toISOString());
