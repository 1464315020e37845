import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearer } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import {
  BillingDayBody,
  BillingDayResponse,
  CreditNoteItem,
  Detail,
  DetailsResponse,
  InvoiceItem,
  MeResponse,
  PasswordBody,
  PasswordResponse,
  StatusHistoryResponse,
  UsageResponse,
} from '../../modules/subscribers/subscriber.schemas.js';

const security = [{ bearer: [] }];
const AUTH = {
  401: Detail.describe('No Bearer token: `Not authenticated`'),
  403: Detail.describe('Invalid or expired token (`Invalid credentials`), or not a subscriber token'),
};
const NO_RECORD = Detail.describe('The account has no subscriber record yet');

export const subscriberRoutes: FastifyPluginAsyncZod = async (app) => {
  const subscribers = app.services.subscribers;
  const passwords = app.services.subscriberPasswords;
  const creditNotes = app.services.creditNotes;
  const billingDays = app.services.billingDays;
  const auth = bearer(['subscriber']);
  const read = { rateLimit: limit('subscriber.read') };
  const write = { rateLimit: limit('subscriber.write') };

  app.get(
    '/subscriber/me',
    {
      onRequest: auth,
      config: read,
      schema: {
        operationId: 'getSubscriberMe',
        tags: ['subscriber'],
        summary: 'The signed-in subscriber: record, subscriptions, linked checkout sessions, provider branding',
        description:
          'Always 200 for a subscriber token. Without a subscriber record yet (an account created at checkout before completion), ' +
          '`subscriber` and `provider` are null and `subscriptions` is empty; `checkout_sessions` still lists the anonymous ' +
          "external-checkout sessions created with this account's token.",
        security,
        response: { 200: MeResponse, ...AUTH },
      },
    },
    (request) => subscribers.me(request.user!.userId),
  );

  app.get(
    '/subscriber/me/details',
    {
      onRequest: auth,
      config: read,
      schema: {
        operationId: 'getSubscriberDetails',
        tags: ['subscriber'],
        summary: 'Full account profile',
        description:
          'Contract holder, billing contact and invoice address, customer_number (null for accounts linked before the rollout) and the saved card summary. 404 without a subscriber record.',
        security,
        response: { 200: DetailsResponse, ...AUTH, 404: NO_RECORD },
      },
    },
    (request) => subscribers.details(request.user!.userId),
  );

  app.patch(
    '/subscriber/me/password',
    {
      onRequest: auth,
      config: write,
      schema: {
        operationId: 'changeSubscriberPassword',
        tags: ['subscriber'],
        summary: 'Change the password',
        description:
          'Needs the current password. A wrong current password answers 400 `Current password is incorrect`; a new password under ' +
          "10 characters answers 422. Outstanding password-reset and activation links stop working, and so does every token issued before the change, this request's own included: log in again with the new password. " +
          'Wrong current passwords count with failed logins: 10 within 15 minutes lock both for 15 minutes (429 with Retry-After).',
        security,
        body: PasswordBody,
        response: {
          200: PasswordResponse,
          400: Detail.describe('`Current password is incorrect`'),
          ...AUTH,
          422: Detail,
          429: Detail.describe('Locked after 10 wrong passwords or failed logins (wait Retry-After seconds)'),
        },
      },
    },
    (request) => passwords.changePassword(request.user!.userId, request.body.current_password, request.body.new_password),
  );

  app.get(
    '/subscriber/me/invoices',
    {
      onRequest: auth,
      config: read,
      schema: {
        operationId: 'listSubscriberInvoices',
        tags: ['subscriber'],
        summary: 'Own invoices, newest first',
        description:
          'The invoices this service issued (monthly and first invoices), sorted by invoice_date descending, each with its lines. Drafts are never listed. 404 without a subscriber record.',
        security,
        response: { 200: z.array(InvoiceItem), ...AUTH, 404: NO_RECORD },
      },
    },
    (request) => subscribers.invoices(request.user!.userId),
  );

  app.get(
    '/subscriber/me/credit-notes',
    {
      onRequest: auth,
      config: read,
      schema: {
        operationId: 'listSubscriberCreditNotes',
        tags: ['subscriber'],
        summary: 'Own credit notes, read live from the billing system, newest first',
        description:
          'Read live from the billing system on every call. Drafts, archived and voided notes are never listed. When the billing ' +
          'system is unreachable the answer is 502 (never an empty list in its place): retry later. The PDF of a note is at ' +
          '`pdf_url` (GET /api/v1/credit-notes/{id}/pdf). 404 without a subscriber record.',
        security,
        response: { 200: z.array(CreditNoteItem), ...AUTH, 404: NO_RECORD, 502: Detail.describe('Billing system unreachable') },
      },
    },
    (request) => creditNotes.list(request.user!.userId),
  );

  app.get(
    '/subscriber/me/usage',
    {
      onRequest: auth,
      config: read,
      schema: {
        operationId: 'getSubscriberUsage',
        tags: ['subscriber'],
        summary: 'Monthly data usage: the last 6 complete calendar months plus the current month to date',
        description:
          "Summed over the subscriber's subscriptions, in decimal gigabytes (1 GB = 1000^3 bytes, 2 places). `status` is " +
          '`no_subscription` (no subscription) or `no_data` (nothing recorded in the window) with an empty `months` list; otherwise ' +
          '`ok` with 7 months, oldest first, months without records as 0, the current one flagged `partial`. 404 without a subscriber record.',
        security,
        response: { 200: UsageResponse, ...AUTH, 404: NO_RECORD },
      },
    },
    (request) => subscribers.usage(request.user!.userId),
  );

  app.get(
    '/subscriber/status-history',
    {
      onRequest: auth,
      config: read,
      schema: {
        operationId: 'getSubscriberStatusHistory',
        tags: ['subscriber'],
        summary: 'Own connection timeline (outages, degradations, maintenance), newest first',
        description:
          'At most the 100 most recent events. `ongoing` is true while `resolved_at` is null. Degrades to an empty `events` list on ' +
          'any failure (and without a subscriber record): an empty list does not prove there were no events.',
        security,
        response: { 200: StatusHistoryResponse, ...AUTH },
      },
    },
    (request) => subscribers.statusHistory(request.user!.userId),
  );

  app.patch(
    '/subscriber/me/billing-day',
    {
      onRequest: auth,
      config: write,
      schema: {
        operationId: 'changeSubscriberBillingDay',
        tags: ['subscriber'],
        summary: 'Move the day of the month the monthly invoice is sent and collected',
        description:
          'The billing period stays the calendar month: only the collection day moves, and no invoice, credit note or correction ' +
          'results. If the current month is already invoiced, the new day applies from next month (`effective_period` = next ' +
          "month's 1st). If it is not invoiced yet, the day must still lie ahead this month: a day that is today or has passed " +
          "answers 409 (choose a later day, or change it after this month's invoice). When the service does not invoice the " +
          'current month (provider-billed, not yet installed, starting next month) the day applies from next month. ' +
          "`next_send_date` is the next recurring invoice's date under the new day, null when the subscription has no recurring " +
          'invoice (provider-billed or not in service). 502 means the day WAS saved but the billing system could not reschedule ' +
          'the next invoice: repeat the same request (safe). 404: not one of your subscriptions. 422: billing_day outside 1 to 10.',
        security,
        body: BillingDayBody,
        response: {
          200: BillingDayResponse,
          ...AUTH,
          404: Detail.describe('Subscription not found among yours'),
          409: Detail.describe(
            'Current month not invoiced yet and the chosen day is today or already passed; or the subscription is cancelled',
          ),
          422: Detail.describe('billing_day outside 1 to 10, or a malformed subscription_id'),
          502: Detail.describe('Day saved, but the next invoice could not be rescheduled: retry the same request'),
        },
      },
    },
    (request) => billingDays.changeBillingDay(request.user!.userId, request.body.subscription_id, request.body.billing_day),
  );
};
