// Response schemas of the subscriber self-service: public fields only (no processor ids,
// operator notes, MAC or user ids).
import { z } from 'zod';
import { AddressParts } from '../../lib/address.schemas.js';

const Money = z
  .string()
  .regex(/^-?\d+\.\d{2}$/)
  .describe('Decimal amount with two places, e.g. "39.99"');
const Currency = z.string().length(3).describe('ISO 4217');
const Timestamp = z.string().describe('RFC 3339 UTC');
const DateOnly = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .describe('YYYY-MM-DD')
  .meta({ format: 'date' });

const SubscriberRecord = z.object({
  id: z.uuid().describe('Subscriber id (the customer id)'),
  customer_number: z.string().nullable().describe('Provider-scoped, e.g. "ABCD-1234"; null for accounts linked before the rollout'),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  created_at: Timestamp,
});

const PlanSummary = z.object({
  plan_version_id: z.uuid(),
  name: z.string(),
  monthly_price: Money,
  currency: Currency,
});

const SubscriptionSummary = z.object({
  id: z.uuid(),
  status: z.enum(['PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED', 'CANCELLED']),
  billed_by: z
    .enum(['service', 'provider'])
    .describe('`service`: this service invoices it monthly; `provider`: the provider bills it (no invoices here)'),
  plan: PlanSummary.extend({ download_mbps: z.number().int(), upload_mbps: z.number().int() }),
  billing_day: z.number().int().min(1).max(10).describe('Day of the month (1..10) the monthly invoice is sent and collected'),
  billing_day_effective_from: DateOnly.nullable().describe(
    'First month (its 1st) the billing_day applies to; earlier months keep the previous day',
  ),
  service_address: z
    .object({
      ...AddressParts,
      unit: z.string().nullable(),
    })
    .nullable()
    .describe('All parts nullable: render defensively'),
  activated_at: Timestamp.nullable(),
  canceled_at: Timestamp.nullable(),
  ended_at: DateOnly.nullable().describe('Exclusive: the first day without service'),
  created_at: Timestamp,
});

export const MeResponse = z.object({
  subscriber: SubscriberRecord.nullable().describe('null while the account has no subscriber record yet'),
  subscriptions: z.array(SubscriptionSummary).describe('Newest first; empty without a subscriber record'),
  checkout_sessions: z
    .array(
      z.object({
        id: z.uuid(),
        status: z.enum(['pending', 'redirected', 'completed', 'expired', 'cancelled']),
        plan: PlanSummary,
        subscription_id: z
          .uuid()
          .nullable()
          .describe(
            'The subscription the session created, when it is one of yours; null when someone else completed it with their own email',
          ),
        created_at: Timestamp,
        completed_at: Timestamp.nullable(),
      }),
    )
    .describe("External-checkout sessions created with this account's Bearer token, newest first"),
  provider: z
    .object({
      id: z.uuid(),
      name: z.string(),
      support_email: z.string(),
      branding: z.object({
        display_name: z.string(),
        logo_url: z.string().nullable(),
        primary_color: z.string().nullable(),
        support_phone: z.string().nullable(),
      }),
    })
    .nullable()
    .describe('The provider of the subscriber record, for branding the portal; null without a record'),
});

const CardSummary = z.object({
  brand: z.string().describe('e.g. "visa"'),
  last4: z.string(),
  exp_month: z.number().int().nullable(),
  exp_year: z.number().int().nullable(),
});

export const DetailsResponse = SubscriberRecord.extend({
  invoice_contact: z
    .object({
      first_name: z.string().nullable(),
      last_name: z.string().nullable(),
      email: z.string().nullable(),
      phone: z.string().nullable(),
    })
    .describe('Billing contact when it differs from the contract holder (null parts: same as the contract holder)'),
  invoice_address: z.object({
    street: z.string().nullable(),
    house_number: z.string().nullable(),
    postal_code: z.string().nullable(),
    city: z.string().nullable(),
    country: z.string().nullable(),
  }),
  payment_method: CardSummary.nullable().describe('The saved card (brand, last 4 digits, expiry), or null'),
  updated_at: Timestamp,
});

export const PasswordBody = z.object({
  current_password: z.string().min(1).max(200).describe('The password in use now'),
  new_password: z.string().min(10).max(200).describe('At least 10 characters'),
});
export const PasswordResponse = z.object({ success: z.boolean(), message: z.string() });

export const InvoiceItem = z.object({
  id: z.uuid(),
  number: z.string().describe('Invoice number, e.g. "INV-202611-7KQ2M9XA"'),
  kind: z.enum(['monthly', 'first']).describe('`first`: the installation month, pro rata; `monthly`: one calendar month'),
  invoice_date: DateOnly,
  due_date: DateOnly,
  period: z
    .string()
    .regex(/^\d{4}-\d{2}$/)
    .nullable()
    .describe('The calendar month billed (YYYY-MM)'),
  total: Money,
  currency: Currency,
  status: z.enum(['open', 'paid', 'void']),
  paid_at: Timestamp.nullable(),
  subscription_id: z.uuid().nullable(),
  lines: z.array(
    z.object({
      kind: z.enum(['subscription', 'plan_change_adjustment', 'credit_applied', 'correction']),
      description: z.string(),
      amount: Money.describe('Signed: a credit applied is negative'),
    }),
  ),
});

export const CreditNoteItem = z.object({
  id: z.string().describe('Credit-note id in the billing system (used for the PDF path)'),
  number: z.string(),
  state: z
    .enum(['open', 'refunded', 'paid_out', 'applied'])
    .describe(
      '`open`: issued, not settled; `refunded`: refunded to the card; `paid_out`: paid by other means; `applied`: applied against an invoice',
    ),
  amount: Money.describe("Gross amount in the provider's currency"),
  currency: Currency,
  reason: z.string(),
  issued_at: Timestamp,
  subscription_id: z.uuid().nullable(),
  pdf_url: z.string().describe('GET this path (with the same Bearer token) for the PDF'),
});

export const UsageResponse = z.object({
  status: z
    .enum(['ok', 'no_subscription', 'no_data'])
    .describe('`no_subscription`: the account has no subscription; `no_data`: no usage recorded in the window (months empty)'),
  months: z
    .array(
      z.object({
        month: z
          .string()
          .regex(/^\d{4}-\d{2}$/)
          .describe('Calendar month (UTC), YYYY-MM'),
        download_gb: z.number().describe('Decimal gigabytes (1 GB = 1,000,000,000 bytes), 2 places'),
        upload_gb: z.number().describe('Decimal gigabytes (1 GB = 1,000,000,000 bytes), 2 places'),
        partial: z.boolean().describe('true for the current month (month to date)'),
      }),
    )
    .describe('Oldest first: the last 6 complete calendar months, then the current month to date'),
});

export const StatusHistoryResponse = z.object({
  events: z.array(
    z.object({
      id: z.uuid(),
      started_at: Timestamp,
      resolved_at: Timestamp.nullable(),
      ongoing: z.boolean().describe('true while not resolved'),
      kind: z.enum(['outage', 'degraded', 'maintenance']),
      description: z.string().nullable(),
    }),
  ),
});

export const BillingDayBody = z.object({
  subscription_id: z.uuid().describe('One of your subscriptions'),
  billing_day: z.number().int().min(1).max(10).default(1).describe('Day of the month, 1 to 10 (default 1)'),
});

export const BillingDayResponse = z.object({
  subscription_id: z.uuid(),
  billing_day: z.number().int(),
  effective_period: DateOnly.describe('First calendar month the new day applies to, as its 1st'),
  next_send_date: DateOnly.nullable().describe(
    'When the next recurring invoice is sent; null when the subscription has no recurring invoice (yet)',
  ),
});

export const PaymentMethodResponse = z.object({ payment_method: CardSummary.nullable() });
export const SetupResponse = z.object({
  client_secret: z.string().describe("Hand to the card processor's client (card form); send it back to .../confirm"),
  status: z.literal('requires_confirmation'),
});
export const ConfirmBody = z.object({
  client_secret: z.string().min(10).max(300).describe('From POST .../setup'),
  card_number: z
    .string()
    .regex(/^[\d -]{12,23}$/)
    .optional()
    .describe(
      "Sandbox only: the test card the processor's card form would collect (4242424242424242 succeeds, 4000000000000002 is declined)",
    ),
});
