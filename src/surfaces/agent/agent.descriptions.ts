import { ADJUSTMENT_TYPES, QUOTE_RULE } from '../../modules/plan-change/index.js';
import { describeRoute } from './common.schemas.js';

// What each /agent operation does, by operationId: the description of its OpenAPI operation (and,
// in the tools' words, of its MCP tool). The route files show the wiring; useOperationDocs
// (agent.errors.ts) sets these on the routes, with their error responses.

/** The plan-change refusals, in the preview's and the apply's descriptions and their 409. */
export const REFUSALS =
  '409 codes, each also answered by the apply call: `plan_change_limit` (the customer already changed plan today, UTC; the next ' +
  'change is possible from tomorrow; only a platform administrator can override), `subscription_not_active` (only ACTIVE ' +
  'subscriptions change plan), `same_plan` (already on this plan version), `plan_not_available` (the plan version is inactive ' +
  'or in another currency).';

const QUOTE_RULES =
  `${QUOTE_RULE} ${ADJUSTMENT_TYPES} ` +
  '`one_time_adjustment` is null with a `note` (HTTP 200) when (a) the month is not invoiced yet: the monthly invoice will reflect ' +
  "the new price; (b) the month's invoice exists but its billing document is missing, or (c) the billing document exists but the " +
  'invoice is missing: (b) and (c) are operator-escalation states, open a ticket and do not quote a number; or the subscription is ' +
  'billed by the provider: no invoice line or credit note is ever issued.';

const QUOTE_TOKEN =
  '`quote_token` is the signed quote of this preview: it binds your provider, the customer, the subscription, the current and the ' +
  'new plan version, both monthly prices, the billing state, the one-time adjustment and the day (UTC), and holds 15 minutes. ' +
  'Send it back with the apply call to apply exactly what the customer heard: the change applies only if all of it still holds.';

export const AGENT_DESCRIPTIONS: Record<string, string> = {
  getCustomerProfile: describeRoute(
    'The slim profile: contract and invoice contacts, invoice address, service locations, subscriptions with plan name, price and status, and whether an online account exists.',
    true,
  ),
  getBillingSummary: describeRoute(
    'What the customer owes (sum of open invoices), each open invoice with its `invoice_id` (to resend it), when the next monthly invoice goes out, and the last payment.',
    true,
  ),
  listPayments: describeRoute(
    'Payments, derived from paid invoices (a paid invoice with its payment reference is the payment record), newest first, each with its `invoice_id`.',
    true,
  ),
  getNetworkHealth: describeRoute(
    'Per subscription: status, activation, provisioning state with the latest provisioning job, installation, last known modem status, and ongoing or recent incidents. Read-only: there is no switch control or live query. A "failed" provisioning state or an offline modem without an incident is a case for a ticket.',
    true,
  ),
  listCustomerTickets: describeRoute(
    'Tickets opened for this customer or with an email address on file (contract or invoice email), newest first. Internal comments (such as transcripts) are never included.',
    true,
  ),
  updateCustomerContact: describeRoute(
    'Changes only the fields you send, immediately: read the new values back to the caller before calling. When something changed, a ' +
      'change-confirmation mail goes to the address that held the changed contact before the change (contract: the contract email on ' +
      'file before; invoice: the invoice email on file before, or the contract email when there was none), never to an address this or an ' +
      'earlier call just set, so change the contract and the invoice email in two calls in any order and each notice reaches the old ' +
      'address (`confirmation_sent_to_masked` says where), with a rollback link (24 hours, single use) ' +
      'that restores the previous values of the changed fields unless they were changed again since. The change does not wait for the mail. ' +
      'contract changes the contract holder (its email is where one-time codes go; the online-account login email is not changed); invoice changes the invoice recipient. ' +
      '409 conflict when another customer of your provider already uses the email.',
    true,
  ),
  sendPortalLink: describeRoute(
    'action "password_reset" (default) emails a reset link valid 15 minutes to the online account\'s login email; 409 portal_account_missing when the customer has no online account (use resend_activation). ' +
      'action "resend_activation" emails the account set-up link valid 14 days, only while no password was ever chosen: 409 already_activated afterwards (use password_reset). ' +
      'For a customer without an online account, resend_activation creates it (login = contract email) and sends the set-up link; 409 conflict when that email already belongs to another login (a staff invitation nobody accepted yet does not count: it is withdrawn).',
    true,
  ),
  resendInvoice: describeRoute(
    "Emails a copy of the invoice, with the PDF attached, to the invoice email on file (else the contract email). Take `invoice_id` from billing-summary or payments. 404 not_found for an invoice that is not this customer's.",
    true,
  ),
  addCustomerNote: describeRoute(
    "Stores an internal note on the customer, attributed to the AI agent, for the provider's staff. It is never shown to the customer and never returned by this API (not even by this call). Accepts Idempotency-Key.",
    true,
  ),
  listPlanOptions: describeRoute(
    'Step 4, when the customer asks for a faster (or cheaper) plan: the plan in force and every plan version the subscription ' +
      "can change to (your provider's active plan versions in the subscription's currency, the current one excluded, cheapest " +
      'first), each with its name, download and upload speed, monthly price and whether it is an upgrade or a downgrade. ' +
      'Take the `plan_version_id` of the plan the customer wants to POST /agent/customers/{customerId}/plan-change/preview; ' +
      'the preview tells the cost of changing today. Read-only.',
    true,
  ),
  previewPlanChange: describeRoute(
    'Step 4, before asking the customer to confirm: quotes changing `subscription_id` to `plan_version_id` today. Nothing is ' +
      `applied or written. Tell the customer the new monthly price and the one-time adjustment (or the note), then call POST ` +
      `/agent/customers/{customerId}/plan-change with confirm: true once they agree. ${QUOTE_RULES} ${REFUSALS} ` +
      `${QUOTE_TOKEN} ` +
      '`proration_factor` and `one_time_adjustment.due_in_days` are deprecated and removed in the next release: read days and days_in_period.',
    true,
  ),
  applyPlanChange: describeRoute(
    'Applies the change immediately (a real, billing-affecting change; no sandbox). Send `confirm: true` only after ' +
      'the customer heard the preview and agreed; without it the answer is 400 confirmation_required and nothing changes. ' +
      'The adjustment is computed again at apply time with the same rules as the preview. Once per customer per UTC calendar ' +
      `day. ${REFUSALS} An audit entry is written in the same transaction as the change. Send an Idempotency-Key to make a ` +
      'retry after a network error safe (same key and body within 24 h replays the first answer). ' +
      'With `quote_token` (from the preview) the call applies exactly the quoted change, or changes nothing and answers 409 ' +
      'quote_changed (the price, the billing state or the day moved: preview again and ask the customer again), 401 quote_expired ' +
      '(older than 15 minutes: preview again) or 401 quote_invalid (altered, or issued for another customer, subscription or plan). ' +
      'Without it (a client following the specification literally: confirm: true alone) the change applies at the price computed ' +
      'now, which can differ from an earlier preview; the answer says what was charged (`charge_summary`) and `quote_matched` ' +
      'is null. With it, `quote_matched` is true. In an operator-escalation state (preview: escalation_required true, no ' +
      'quote_token) the answer is 409 billing_escalation and nothing changes, unless `acknowledge_escalation: true` is sent: ' +
      "open a ticket instead. The customer's contract email then receives a " +
      'change-confirmation mail with a rollback link (24 hours, single use) that restores the previous plan; the change itself ' +
      'applies immediately and does not wait for the mail.',
    true,
  ),
  listRecentChanges: describeRoute(
    'After a plan change or a contact update: the changes of the last 30 days that sent the customer a confirmation mail ' +
      'with an undo link, newest first, each with whether it can still be undone (`can_undo`, `undo_state`), until when ' +
      '(`undo_until`, 24 hours after the change) and where the mail went. The customer undoes a change themselves with the ' +
      'link in that mail; if they cannot find it, POST /agent/customers/{customerId}/recent-changes/{changeId}/resend-confirmation.',
    true,
  ),
  resendChangeConfirmation: describeRoute(
    'Sends the confirmation mail of a change again, with a fresh undo link, to the address that received it the first ' +
      'time (never to an address the change itself set). The link in the earlier mail stops working; the undo still ends ' +
      '24 hours after the change (`undo_until`). Take `changeId` from GET /agent/customers/{customerId}/recent-changes. ' +
      '409 conflict when the change was already undone or its 24 hours passed.',
    true,
  ),
  searchCustomers: describeRoute(
    "Finds customers of your provider by the contact's or invoice contact's name, email or phone, customer number " +
      '("ABCD-1234"), invoice address, service building address or unit. Email, phone and customer number match only in full ' +
      '(email in any case, phone in any formatting: "+49 151 2345 6789", "0151/23456789"); a part of one matches nothing. Name ' +
      'words match whole words (one typo allowed in a word of 5+ letters, never a shortened name); street, city, postal code, ' +
      'building, house number and unit words match by prefix. q is read in up to three passes, each only when the one before ' +
      'found nothing: (1) as a phone number, email or customer number; as a name ("Erika Mustermann", "Mustermann Erika"); as an ' +
      'address, street and house number with unit, postal code or city ("Sonnenweg 7 4B", "594 Main Street"), optionally after ' +
      'the name; or as a name narrowed by its place ("Erika Mustermann 4B"); (2) every word of q against every field; (3) the ' +
      'same with one typo in a name word. So appending the unit or street to a name narrows it. A house number or unit is exact ' +
      'in (1) ("12" finds 12 and 12a, not 120). `match_count` counts the matches of the pass that answered, up to 1000. A search ' +
      'has a time bound; one that reaches it answers `incomplete: true` with what it found. Answers are masked: verify the ' +
      'caller before reading account data. Never auto-select when `ambiguous` is true: ask for the service address or unit and ' +
      'search again, or escalate with a ticket.',
  ),
  createTicket: describeRoute(
    'The escalation path: works for unverified callers. Give customer_id (a customer of your provider; 404 customer_not_found otherwise) or contact_email (one of the two is required). ' +
      "ai_summary and ai_diagnosis become the customer-facing article; transcript is kept as an internal staff-only comment. The ticket goes to the provider's support queue and its support address is notified. " +
      "Send X-Verified-Session when the caller was verified for customer_id: only then is the ticket listed with caller_verified: true in the customer's ticket history (an unverified caller's ticket holds their claim, not instructions). " +
      'Accepts Idempotency-Key: retry with the same key after a timeout rather than opening a second ticket.',
  ),
  issueVerificationCode: describeRoute(
    'Sends a 6-digit one-time code to the customer\'s contact email on file (or, with channel "sms", to the mobile number on file). ' +
      'The code is valid 10 minutes and works once; issuing a new code makes the previous one invalid. Ask the caller to read ' +
      'the code back and pass it to POST /agent/verify/check. At most 5 codes per customer in 10 minutes: the 6th answers ' +
      'the standard rate-limit 429 (no envelope, like every 429 of /agent) with Retry-After: wait, or escalate with a ticket. ' +
      'channel "sms" answers 503 dependency_unconfigured until SMS is set up for your provider account: use email instead.',
  ),
  checkVerificationCode: describeRoute(
    'Validates the 6-digit code. On success answers the `verified_session` token: send it as `X-Verified-Session` on the ' +
      'verified routes of THIS customer for the next 15 minutes (it is bound to this customer and your provider). ' +
      'Errors: 401 invalid_code (wrong code, attempts remain: ask the caller again), 401 code_expired (issue a new code), ' +
      '403 too_many_attempts (5 wrong codes locked this code: issue a new one). After repeated failures, escalate with a ticket.',
  ),
};
