import type { MailMessage } from '../../mail/types.js';

export interface BookingInvitation {
  to: string;
  firstName: string;
  providerName: string;
  url: string;
  expiresAt: Date;
  moveInDate: string | null;
}

/** The booking-link invitation of a third-line installation. */
export function bookingInvitationMail(i: BookingInvitation): Omit<MailMessage, 'attachments'> {
  const text = [
    `Hello ${i.firstName},`,
    '',
    `please choose a four-hour window for the installation of your ${i.providerName} connection:`,
    i.url,
    '',
    i.moveInDate ? `Windows start on your move-in day (${i.moveInDate}) at the earliest. ` : '',
    'You can move or cancel the appointment with the same link until 24 hours before it starts.',
    `The link is valid until ${i.expiresAt.toISOString().slice(0, 10)}.`,
  ].filter((l) => l !== '').join('\n');
  return { to: i.to, subject: `Book your installation appointment`, text, tag: 'booking_invitation' };
}
