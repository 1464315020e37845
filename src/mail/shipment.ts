// The shipment mail of an install job (issue 28 §2): the equipment is on its way, with the carrier and
// its tracking reference. Second-line subscribers plug the CPE in themselves; third-line and other
// technician visits keep their booked appointment, which the mail repeats in the building's time zone.
import { formatLocal, localTime } from '../lib/zoned-time.js';
import { oneLine, render, type Block } from './layout.js';
import type { MailContent, MailContext } from './templates.js';

const SHIPMENT_TAG = 'installation_shipped';

export interface ShipmentMailInput {
  firstName?: string | null;
  kind: 'technician_visit' | 'cpe_shipment';
  carrier: string;
  trackingReference: string;
  address?: string | null;
  /** The booked window of a technician visit, shown in `timeZone`. */
  appointment?: { startsAt: Date; endsAt: Date; timeZone: string } | null;
}

export function shipmentMail(ctx: MailContext, i: ShipmentMailInput): MailContent {
  const name = i.firstName && i.firstName.trim() ? `Hello ${oneLine(i.firstName, 100)},` : 'Hello,';
  const where = i.address ? ` for ${oneLine(i.address)}` : '';
  const blocks: Block[] = [
    { kind: 'p', text: name },
    { kind: 'p', text: `the equipment for your ${ctx.brand.name} connection${where} has been shipped.` },
    {
      kind: 'facts',
      rows: [
        ['Carrier', oneLine(i.carrier, 100)],
        ['Tracking reference', oneLine(i.trackingReference, 100)],
      ],
    },
  ];
  if (i.kind === 'cpe_shipment') {
    blocks.push({ kind: 'p', text: 'Connect the device as its leaflet shows; your service starts once the installation is confirmed.' });
  } else if (i.appointment) {
    const { startsAt, endsAt, timeZone } = i.appointment;
    blocks.push({
      kind: 'p',
      text: `Your technician brings it in the booked window: ${formatLocal(timeZone, startsAt)}, until ${localTime(timeZone, endsAt)}.`,
    });
  } else {
    blocks.push({ kind: 'p', text: 'A technician will install it; we will tell you the appointment.' });
  }
  const title = 'Your equipment has been shipped';
  return { subject: oneLine(`${title} – ${ctx.brand.name}`, 250), ...render(ctx.brand, title, blocks), tag: SHIPMENT_TAG };
}
