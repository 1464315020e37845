/** The parts of an install job's address that its mails name (findBookingContext's row). */
interface AddressOfJob {
  street: string | null;
  house_number: string | null;
  postal_code: string | null;
  city: string | null;
  unit_label: string | null;
}

/** "Street 12a, 10115 City, unit 2.OG links", or null when nothing is known: the booking and shipment mails. */
export function installAddressLine(ctx: AddressOfJob): string | null {
  const line =
    [[ctx.street, ctx.house_number].filter(Boolean).join(' '), [ctx.postal_code, ctx.city].filter(Boolean).join(' ')]
      .filter(Boolean)
      .join(', ') + (ctx.unit_label ? `, unit ${ctx.unit_label}` : '');
  return line || null;
}
