// The change-confirmation mails of /agent writes (contact edit, plan change), each with its
// rollback link (24 hours, single use). The change has applied already; the mail only confirms it.
import { formatCents } from '../lib/money.js';
import { oneLine, render, type Block } from './layout.js';
import { rollbackUrl } from './links.js';
import type { MailContent, MailContext } from './templates.js';

const CHANGE_CONFIRMATION_TAGS = { contact: 'contact_change_confirmation', plan: 'plan_change_confirmation' } as const;
const ROLLBACK_LINK_HOURS = 24;

const FIELD_LABELS: Record<string, string> = {
  first_name: 'first name',
  last_name: 'last name',
  email: 'email address',
  phone: 'phone number',
};

const greeting = (firstName?: string | null) => (firstName && firstName.trim() ? `Hello ${oneLine(firstName, 100)},` : 'Hello,');
const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function confirmation(
  ctx: MailContext,
  tag: string,
  title: string,
  blocks: Block[],
  i: { token: string; expiresAt: Date; undo: string },
): MailContent {
  const all: Block[] = [
    ...blocks,
    { kind: 'p', text: `If you did not ask for this, or want it undone, ${i.undo}:` },
    { kind: 'button', label: 'Undo this change', url: rollbackUrl(ctx.baseUrl, i.token) },
    {
      kind: 'small',
      text: `The link works once, until ${utc(i.expiresAt)} (${ROLLBACK_LINK_HOURS} hours). Opening it shows a page where you confirm; nothing is undone before you do.`,
    },
  ];
  return { subject: oneLine(`${title} – ${ctx.brand.name}`, 250), ...render(ctx.brand, title, all), tag };
}

/** After a contact edit; sent to the contract email that was on file before it. */
export function contactChangeMail(
  ctx: MailContext,
  i: { firstName?: string | null; contactType: 'contract' | 'invoice'; fields: string[]; token: string; expiresAt: Date },
): MailContent {
  const which = i.contactType === 'contract' ? 'contact details' : 'invoice contact details';
  const fields = i.fields.map((f) => FIELD_LABELS[f] ?? f).join(', ');
  return confirmation(
    ctx,
    CHANGE_CONFIRMATION_TAGS.contact,
    `Your ${which} were changed`,
    [
      { kind: 'p', text: greeting(i.firstName) },
      { kind: 'p', text: `at your request, ${ctx.brand.name} support changed your ${which}. Changed: ${fields}.` },
    ],
    { ...i, undo: 'restore the previous details here' },
  );
}

/** After an /agent plan change; sent to the contract email. */
export function planChangeMail(
  ctx: MailContext,
  i: {
    firstName?: string | null;
    fromName: string;
    fromPriceCents: number;
    toName: string;
    toPriceCents: number;
    currency: string;
    effectiveDate: string;
    adjustment: { type: string; amountCents: number } | null;
    token: string;
    expiresAt: Date;
  },
): MailContent {
  const price = (cents: number) => `${formatCents(cents)} ${i.currency} per month`;
  const rows: [string, string][] = [
    ['Previous plan', `${oneLine(i.fromName, 100)} (${price(i.fromPriceCents)})`],
    ['New plan', `${oneLine(i.toName, 100)} (${price(i.toPriceCents)})`],
    ['Effective', i.effectiveDate],
  ];
  if (i.adjustment && i.adjustment.type !== 'none') {
    const amount = `${formatCents(Math.abs(i.adjustment.amountCents))} ${i.currency}`;
    rows.push([
      'This month',
      i.adjustment.type === 'credit' ? `${amount} credited to your next invoice` : `${amount} added to your next invoice`,
    ]);
  }
  return confirmation(
    ctx,
    CHANGE_CONFIRMATION_TAGS.plan,
    'Your plan was changed',
    [
      { kind: 'p', text: greeting(i.firstName) },
      { kind: 'p', text: `at your request, ${ctx.brand.name} support changed your plan. It applies from today.` },
      { kind: 'facts', rows },
    ],
    { ...i, undo: 'return to your previous plan here; the amount for this month is corrected on your next invoice' },
  );
}
