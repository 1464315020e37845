// One function per mail the documents name. Each returns {subject, text, html, tag}, ready for
// `mailer.enqueue(trx, { to, ...content })` or `mailer.send(...)`; the invoice copy also returns
// its PDF attachment (attachments need `mailer.send`, or the `mail.invoice_copy` job).
import { formatCents } from '../lib/money.js';
import { formatLocal } from '../lib/zoned-time.js';
import { oneLine, render, type Block, type MailBrand } from './layout.js';
import { bookingUrl, paymentUrl, setPasswordUrl } from './links.js';
import type { MailAttachment } from './types.js';
import { group } from '../lib/present.js';

export { type MailBrand } from './layout.js';
export * from './links.js';

/** Who sends (brand) and where links point (config.publicBaseUrl). */
export interface MailContext {
  brand: MailBrand;
  baseUrl: string;
}

export interface MailContent {
  subject: string;
  text: string;
  html: string;
  tag: string;
}

const MAIL_TAGS = {
  verificationCode: 'verification_code',
  passwordReset: 'password_reset',
  activation: 'account_activation',
  staffInvite: 'staff_invite',
  staffInviteRefused: 'staff_invite_refused',
  invoiceCopy: 'invoice_copy',
  installationBooking: 'installation_booking',
  paymentLink: 'payment_link',
  ticketNotification: 'ticket_notification',
} as const;

/** Lifetimes stated in the mails; they must match the tokens' (decisions.md). */
export const VERIFICATION_CODE_MINUTES = 10;
const PASSWORD_RESET_MINUTES = 15;
const SET_UP_LINK_DAYS = 14;
const BOOKING_MIN_LEAD_HOURS = 24;

/** The brand of a provider row: branding.display_name when set, else the provider's name. */
export function mailBrand(provider: { name: string; support_email: string; branding?: unknown }): MailBrand {
  const b = (provider.branding && typeof provider.branding === 'object' ? provider.branding : {}) as Record<string, unknown>;
  const display = typeof b.display_name === 'string' && b.display_name.trim() ? b.display_name.trim() : provider.name;
  const phone = typeof b.support_phone === 'string' && b.support_phone.trim() ? b.support_phone.trim() : null;
  return { name: display, supportEmail: provider.support_email, supportPhone: phone };
}

const greeting = (firstName?: string | null) => (firstName && firstName.trim() ? `Hello ${oneLine(firstName, 100)},` : 'Hello,');
/** A Date as "2026-11-16 10:15 UTC". */
const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const money = (cents: number, currency: string) => `${formatCents(cents)} ${currency.trim().toUpperCase()}`;

function mail(ctx: MailContext, tag: string, subject: string, title: string, blocks: Block[]): MailContent {
  const s = oneLine(`${subject} – ${ctx.brand.name}`, 250);
  return { subject: s, ...render(ctx.brand, title, blocks), tag };
}

/** The one-time code the support agent asks the caller for (6 digits, valid 10 minutes). */
export function verificationCodeMail(ctx: MailContext, i: { firstName?: string | null; code: string }): MailContent {
  if (!/^\d{6}$/.test(i.code)) throw new RangeError('verification code must be 6 digits');
  return mail(ctx, MAIL_TAGS.verificationCode, 'Your verification code', 'Your verification code', [
    { kind: 'p', text: greeting(i.firstName) },
    { kind: 'p', text: `you are talking to ${ctx.brand.name} support. To confirm it is you, tell the support assistant this code:` },
    { kind: 'code', code: i.code, label: 'Verification code' },
    { kind: 'p', text: `The code is valid for ${VERIFICATION_CODE_MINUTES} minutes and works once.` },
    { kind: 'small', text: `If you did not contact ${ctx.brand.name} support, ignore this message and do not share the code with anyone.` },
  ]);
}

/** Password reset link (single use, 15 minutes). */
export function passwordResetMail(ctx: MailContext, i: { firstName?: string | null; token: string }): MailContent {
  return mail(ctx, MAIL_TAGS.passwordReset, 'Reset your password', 'Reset your password', [
    { kind: 'p', text: greeting(i.firstName) },
    { kind: 'p', text: `we received a request to reset the password of your ${ctx.brand.name} account. Choose a new password here:` },
    { kind: 'button', label: 'Choose a new password', url: setPasswordUrl(ctx.baseUrl, i.token) },
    { kind: 'p', text: `The link works once and expires in ${PASSWORD_RESET_MINUTES} minutes.` },
    { kind: 'small', text: 'If you did not ask for this, ignore this message: your password stays as it is.' },
  ]);
}

/** Account activation: the customer chooses a first password (single use, 14 days). */
export function activationMail(
  ctx: MailContext,
  i: { firstName?: string | null; token: string; customerNumber?: string | null },
): MailContent {
  const blocks: Block[] = [
    { kind: 'p', text: greeting(i.firstName) },
    { kind: 'p', text: `welcome to ${ctx.brand.name}. Set up your online account by choosing a password:` },
    { kind: 'button', label: 'Set up my account', url: setPasswordUrl(ctx.baseUrl, i.token) },
    { kind: 'p', text: `The link works once and expires in ${SET_UP_LINK_DAYS} days.` },
  ];
  if (i.customerNumber) blocks.push({ kind: 'facts', rows: [['Customer number', i.customerNumber]] });
  return mail(ctx, MAIL_TAGS.activation, 'Set up your account', 'Set up your account', blocks);
}

const SP_ROLE_NAMES: Record<string, string> = { sp_admin: 'Administrator', support: 'Support', sales: 'Sales', bookkeeping: 'Bookkeeping' };

/** Staff invite to the provider dashboard: set a password (single use, 14 days). */
export function staffInviteMail(
  ctx: MailContext,
  i: { firstName?: string | null; token: string; spRole: string; invitedBy?: string | null },
): MailContent {
  const by = i.invitedBy ? `${oneLine(i.invitedBy, 100)} invited you` : 'You have been invited';
  return mail(ctx, MAIL_TAGS.staffInvite, 'You are invited to the provider dashboard', 'You are invited to the provider dashboard', [
    { kind: 'p', text: greeting(i.firstName) },
    { kind: 'p', text: `${by} to the ${ctx.brand.name} provider dashboard. Choose your password to sign in:` },
    { kind: 'button', label: 'Set my password', url: setPasswordUrl(ctx.baseUrl, i.token) },
    { kind: 'facts', rows: [['Role', SP_ROLE_NAMES[i.spRole] ?? i.spRole]] },
    {
      kind: 'p',
      text: `The link works once and expires in ${SET_UP_LINK_DAYS} days. Ask your administrator for a new invitation after that.`,
    },
  ]);
}

/**
 * The platform as a mail's sender, from MAIL_FROM ("Name <address>" or a bare address): for mails that
 * speak for no provider, such as the refused staff invitation, which must show nothing of the
 * inviting provider but its name.
 */
export function platformBrand(mailFrom: string): MailBrand {
  const m = /^\s*"?([^"<]*?)"?\s*<([^<>\s]+)>\s*$/.exec(mailFrom);
  if (m) return { name: group(m, 1).trim() || group(m, 2), supportEmail: group(m, 2) };
  return { name: mailFrom.trim(), supportEmail: mailFrom.trim() };
}

/**
 * To an address that already has a login (logins are one per email, across providers) and that a
 * provider admin tried to invite as staff: nothing was created. Names the provider, nothing else of it.
 */
export function staffInviteRefusedMail(ctx: MailContext, i: { providerName: string }): MailContent {
  const provider = oneLine(i.providerName, 100);
  return mail(ctx, MAIL_TAGS.staffInviteRefused, 'A staff invitation was not created', 'A staff invitation was not created', [
    { kind: 'p', text: greeting(null) },
    {
      kind: 'p',
      text:
        `${provider} tried to invite this address to its provider dashboard. This address already has a login with us, and a ` +
        'login belongs to one account only, so no invitation was created and nothing about your login changed.',
    },
    { kind: 'p', text: 'If you expected the invitation, ask them to invite another address of yours. Otherwise there is nothing to do.' },
  ]);
}

export interface InvoiceCopyInput {
  firstName?: string | null;
  invoiceNumber: string;
  invoiceDate: string;
  dueDate: string;
  totalCents: number;
  currency: string;
  /** 'draft', 'open', 'paid' or 'void'; another status is printed as it is. */
  status?: string;
  /** The day the copy was asked for: an unpaid invoice due before it is overdue. */
  today?: string;
  /** The invoice PDF (renderInvoicePdf), attached as invoice-<number>.pdf. */
  pdf: Buffer;
}

/** A copy of an invoice with its PDF attached (send with mailer.send: enqueue carries no attachments). */
export function invoiceCopyMail(ctx: MailContext, i: InvoiceCopyInput): MailContent & { attachments: MailAttachment[] } {
  const state =
    i.status === 'paid'
      ? 'This invoice is paid; no action is needed.'
      : i.today && i.dueDate < i.today
        ? `This invoice was due on ${i.dueDate} and is overdue: please pay it as soon as possible.`
        : `Please pay by ${i.dueDate}.`;
  const content = mail(ctx, MAIL_TAGS.invoiceCopy, `Your invoice ${oneLine(i.invoiceNumber, 60)}`, `Invoice ${i.invoiceNumber}`, [
    { kind: 'p', text: greeting(i.firstName) },
    { kind: 'p', text: `as requested, here is a copy of your ${ctx.brand.name} invoice. The PDF is attached to this message.` },
    {
      kind: 'facts',
      rows: [
        ['Invoice number', i.invoiceNumber],
        ['Invoice date', i.invoiceDate],
        ['Due date', i.dueDate],
        ['Total', money(i.totalCents, i.currency)],
      ],
    },
    { kind: 'p', text: state },
  ]);
  const filename = `invoice-${i.invoiceNumber.replace(/[^A-Za-z0-9._-]+/g, '_')}.pdf`;
  return { ...content, attachments: [{ filename, content: i.pdf, contentType: 'application/pdf' }] };
}

/** Third-line installation: book a four-hour weekday window at least 24 h ahead; move or cancel from the link. */
export function installationBookingMail(
  ctx: MailContext,
  i: {
    firstName?: string | null;
    token: string;
    address?: string | null;
    moveInDate?: string | null;
    expiresAt?: Date | null;
    minLeadHours?: number;
    timeZone?: string;
  },
): MailContent {
  const lead = i.minLeadHours ?? BOOKING_MIN_LEAD_HOURS;
  // Appointments are in the building's own time zone, named so nobody reads them as theirs.
  const zone = i.timeZone ?? 'UTC';
  const blocks: Block[] = [
    { kind: 'p', text: greeting(i.firstName) },
    {
      kind: 'p',
      text: `a technician will install your ${ctx.brand.name} connection${i.address ? ` at ${oneLine(i.address)}` : ''}. Please book a four-hour appointment window on a weekday (Monday to Friday), at least ${lead} hours ahead, starting at 08:00, 12:00 or 16:00 local time (${zone}):`,
    },
    { kind: 'button', label: 'Book my installation', url: bookingUrl(ctx.baseUrl, i.token) },
  ];
  if (i.moveInDate) blocks.push({ kind: 'p', text: `Windows start on your move-in day (${i.moveInDate}) at the earliest.` });
  blocks.push({ kind: 'p', text: 'Need another time? Open the same link to move or cancel your appointment.' });
  if (i.expiresAt)
    blocks.push({
      kind: 'small',
      text: `The link is valid until ${i.timeZone ? formatLocal(i.timeZone, i.expiresAt) : utc(i.expiresAt)}.`,
    });
  return mail(ctx, MAIL_TAGS.installationBooking, 'Book your installation appointment', 'Book your installation appointment', blocks);
}

/** Payment link for an invoice; by default the first invoice, after installation, when no card is saved. */
export function paymentLinkMail(
  ctx: MailContext,
  i: {
    firstName?: string | null;
    token: string;
    invoiceNumber: string;
    totalCents: number;
    currency: string;
    dueDate?: string | null;
    expiresAt?: Date | null;
    first?: boolean;
  },
): MailContent {
  const first = i.first ?? true;
  const blocks: Block[] = [
    { kind: 'p', text: greeting(i.firstName) },
    {
      kind: 'p',
      text: first
        ? `your ${ctx.brand.name} connection is installed. To start your service, please pay your first invoice by card:`
        : `please pay your ${ctx.brand.name} invoice by card:`,
    },
    {
      kind: 'facts',
      rows: [
        ['Invoice number', i.invoiceNumber],
        ['Amount', money(i.totalCents, i.currency)],
        ...(i.dueDate ? ([['Due date', i.dueDate]] as [string, string][]) : []),
      ],
    },
    { kind: 'button', label: 'Pay now', url: paymentUrl(ctx.baseUrl, i.token) },
  ];
  if (i.expiresAt) blocks.push({ kind: 'small', text: `The link works until ${utc(i.expiresAt)}.` });
  const subject = first ? 'Pay your first invoice' : `Pay invoice ${oneLine(i.invoiceNumber, 60)}`;
  return mail(ctx, MAIL_TAGS.paymentLink, subject, subject, blocks);
}

export interface TicketNotificationInput {
  ticketId: string;
  subject: string;
  /** 'low', 'normal' or 'high'; another priority is printed as it is. */
  priority: string;
  queue: string;
  contactEmail: string;
  customer?: { name: string; customerNumber?: string | null } | null;
  /** The customer-facing article (ai_summary + ai_diagnosis). */
  article: string;
  source?: string;
  /**
   * Whether the caller proved who they are (a live verified session for this customer) when the
   * ticket was opened; the mail says it plainly either way, so staff never take the ticket's text
   * (written from what the caller said) as a verified customer's request (issue 30 §6).
   */
  callerVerified?: boolean;
}

/** The plain sentence the notification opens with about the caller's identity. */
function callerVerifiedLine(verified: boolean): string {
  return verified
    ? 'Caller verified: yes. The caller confirmed a one-time code sent to the contact on file for this customer.'
    : 'Caller verified: NO. The caller did not prove who they are: treat the name, the request and every claim in this ticket as unconfirmed, and verify before changing the account or sharing its data.';
}

/**
 * A new ticket, notified to the provider's support address (`to` is included: brand.supportEmail).
 * Reply-by-mail is not wired: the ticket lives in the queue named here.
 */
export function ticketNotificationMail(ctx: MailContext, i: TicketNotificationInput): MailContent & { to: string } {
  const rows: [string, string][] = [
    ['Ticket', i.ticketId],
    ['Queue', i.queue],
    ['Priority', i.priority],
    ['Contact', i.contactEmail],
  ];
  if (i.customer)
    rows.push(['Customer', i.customer.customerNumber ? `${i.customer.name} (${i.customer.customerNumber})` : i.customer.name]);
  if (i.source) rows.push(['Opened by', i.source === 'ai_agent' ? 'AI support agent' : i.source]);
  if (i.callerVerified !== undefined) rows.push(['Caller verified', i.callerVerified ? 'yes' : 'NO (unconfirmed identity)']);
  const prio = i.priority === 'high' ? '[high] ' : '';
  const content = mail(
    ctx,
    MAIL_TAGS.ticketNotification,
    `${prio}New ticket: ${oneLine(i.subject, 120)}`,
    `New ticket in the ${i.queue} queue`,
    [
      { kind: 'p', text: `A new ticket was opened and routed to the ${i.queue} queue.` },
      ...(i.callerVerified === undefined ? [] : [{ kind: 'p' as const, text: callerVerifiedLine(i.callerVerified) }]),
      { kind: 'facts', rows },
      { kind: 'p', text: `Subject: ${oneLine(i.subject, 300)}` },
      { kind: 'quote', text: i.article },
    ],
  );
  return { to: ctx.brand.supportEmail, ...content };
}
