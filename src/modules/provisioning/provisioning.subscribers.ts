import type { Transaction } from 'kysely';
import { parsePhoneNumber } from 'awesome-phonenumber';
import type { DB } from '../../db/types.js';
import { customerNumber, newId } from '../../lib/ids.js';
import { findUserByEmail, findUserById } from '../auth/index.js';
import { findSubscriberByEmail, insertNewSubscriber, insertSubscriberIfAbsent, insertUserIfAbsent } from '../subscribers/index.js';

export interface SubscriberInput {
  email: string;
  first_name: string;
  last_name: string;
  phone?: string | null;
}

/** E.164 for search, from the number as written (national numbers read in the building's country). */
function toE164(phone: string | null | undefined, country: string | null): string | null {
  if (!phone) return null;
  const p = parsePhoneNumber(phone, { regionCode: (country ?? 'DE').trim().toUpperCase() });
  return p.valid ? (p.number?.e164 ?? null) : null;
}

/** A new subscriber's row from the input: trimmed names, a fresh customer number, the phone also as E.164. */
export function newSubscriberRow(id: string, providerId: string, s: SubscriberInput, country: string | null, at: Date) {
  return {
    id,
    providerId,
    customerNumber: customerNumber(),
    firstName: s.first_name.trim(),
    lastName: s.last_name.trim(),
    email: s.email.trim(),
    phone: s.phone?.trim() || null,
    phoneE164: toE164(s.phone, country),
    at,
  };
}

/** The subscriber of an email as a read just before the transaction found it. */
export interface KnownSubscriber {
  id: string;
  email: string;
  firstName: string;
}

/**
 * The subscriber of (provider, email): reused when it exists (its names and phone are kept as
 * they are), otherwise created with a fresh customer number and linked to a subscriber login
 * without a password (the person activates it later through an activation link).
 * Concurrent calls for one email end with one row: the insert does nothing on any unique index
 * conflict, and the loop re-reads (a customer-number collision just draws a new number).
 *
 * `known` is what a read just before the transaction said (undefined: nothing was read). A known
 * subscriber is reused as is (subscribers are never deleted, and the email is unique per provider);
 * a known absence goes straight to one statement that creates login and subscriber together, and
 * only when that statement could not insert (a concurrent request, a number collision) does the
 * step-by-step loop below take over.
 */
export async function findOrCreateSubscriber(
  trx: Transaction<DB>,
  at: Date,
  providerId: string,
  s: SubscriberInput,
  o: { country: string | null; linkUserId?: string | null; known?: KnownSubscriber | null },
): Promise<{ id: string; created: boolean; email: string; firstName: string }> {
  const email = s.email.trim();
  if (o.known) return { id: o.known.id, created: false, email: o.known.email, firstName: o.known.firstName };
  if (o.known === null && !o.linkUserId) {
    const id = newId();
    const r = await insertNewSubscriber(trx, newSubscriberRow(id, providerId, s, o.country, at));
    if (r.inserted) return { id, created: true, email, firstName: s.first_name.trim() };
  }
  for (let attempt = 0; attempt < 8; attempt++) {
    const existing = await findSubscriberByEmail(trx, providerId, email);
    if (existing) return { id: existing.id, created: false, email: existing.email, firstName: existing.first_name };
    const userId = await subscriberLogin(trx, at, email, s, o.linkUserId ?? null);
    const id = newId();
    const inserted = await insertSubscriberIfAbsent(trx, { ...newSubscriberRow(id, providerId, s, o.country, at), userId });
    if (inserted) return { id, created: true, email, firstName: s.first_name.trim() };
  }
  throw new Error('could not allocate a customer number');
}

/**
 * The login of a new subscriber: the account the checkout session was linked to when it is that
 * person's (the same email, case-insensitive), else the existing subscriber login with this email
 * (one person, one login across providers), else a new one without a password. A staff or admin
 * account with the email is never linked.
 *
 * A session created with someone's Bearer token may be completed by anyone the link reached: a
 * buyer completing with their own email gets their own login, never the session creator's (else the
 * creator would read the buyer's subscription, receive their password resets, and the buyer could
 * never activate an account of their own).
 */
async function subscriberLogin(
  trx: Transaction<DB>,
  at: Date,
  email: string,
  s: SubscriberInput,
  linkUserId: string | null,
): Promise<string | null> {
  if (linkUserId) {
    const u = await findUserById(trx, linkUserId);
    if (u?.role === 'subscriber' && u.email.trim().toLowerCase() === email.toLowerCase()) return u.id;
  }
  await insertUserIfAbsent(trx, { id: newId(), email, firstName: s.first_name.trim(), lastName: s.last_name.trim(), at });
  const user = await findUserByEmail(trx, email);
  return user?.role === 'subscriber' ? user.id : null;
}
