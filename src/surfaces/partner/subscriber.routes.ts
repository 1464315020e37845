import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearer, userOf } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import {
  BillingDayBody,
  BillingDayResponse,
  CreditNoteItem,
  DetailsResponse,
  InvoiceItem,
  MeResponse,
  PasswordBody,
  PasswordResponse,
  StatusHistoryResponse,
  UsageResponse,
} from '../../modules/subscribers/index.js';
import { Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

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
        description: PARTNER_DESCRIPTIONS.getSubscriberMe,
        security,
        response: { 200: MeResponse, ...AUTH },
      },
    },
    (request) => subscribers.me(userOf(request).userId),
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
        description: PARTNER_DESCRIPTIONS.getSubscriberDetails,
        security,
        response: { 200: DetailsResponse, ...AUTH, 404: NO_RECORD },
      },
    },
    (request) => subscribers.details(userOf(request).userId),
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
        description: PARTNER_DESCRIPTIONS.changeSubscriberPassword,
        security,
        body: PasswordBody,
        response: {
          200: PasswordResponse,
          400: Detail.describe('`Current password is incorrect`'),
          ...AUTH,
          422: Detail,
          429: Detail.describe('Locked from this network after 10 wrong passwords or failed logins (wait Retry-After seconds)'),
        },
      },
    },
    (request) => passwords.changePassword(userOf(request).userId, request.body.current_password, request.body.new_password, request.ip),
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
        description: PARTNER_DESCRIPTIONS.listSubscriberInvoices,
        security,
        response: { 200: z.array(InvoiceItem), ...AUTH, 404: NO_RECORD },
      },
    },
    (request) => subscribers.invoices(userOf(request).userId),
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
        description: PARTNER_DESCRIPTIONS.listSubscriberCreditNotes,
        security,
        response: { 200: z.array(CreditNoteItem), ...AUTH, 404: NO_RECORD, 502: Detail.describe('Billing system unreachable') },
      },
    },
    (request) => creditNotes.list(userOf(request).userId),
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
        description: PARTNER_DESCRIPTIONS.getSubscriberUsage,
        security,
        response: { 200: UsageResponse, ...AUTH, 404: NO_RECORD },
      },
    },
    (request) => subscribers.usage(userOf(request).userId),
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
        description: PARTNER_DESCRIPTIONS.getSubscriberStatusHistory,
        security,
        response: { 200: StatusHistoryResponse, ...AUTH },
      },
    },
    (request) => subscribers.statusHistory(userOf(request).userId),
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
        description: PARTNER_DESCRIPTIONS.changeSubscriberBillingDay,
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
    (request) => billingDays.changeBillingDay(userOf(request).userId, request.body.subscription_id, request.body.billing_day),
  );
};
