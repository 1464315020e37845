import type { ExampleMap } from '../../../plugins/openapi-examples.js';
import { MALFORMED_IDEMPOTENCY_KEY, nordlichtBranding } from './common.examples.js';

const noSubscriberRecord = (name: string) => ({ name, detail: 'No subscriber record for this account' });
const CREDIT_NOTES_UNREACHABLE = {
  name: 'billing_unreachable',
  detail: 'The billing system is unreachable right now, so credit notes cannot be read; try again in a few minutes',
};
const NO_CARD_PROCESSOR = {
  name: 'no_card_processor',
  detail: 'Your provider has no card-processor connection; card payments are not available',
};
const CARD_PROCESSOR_UNREACHABLE = {
  name: 'card_processor_unreachable',
  detail: 'The card processor is unreachable right now; try again in a few minutes',
};
const savedVisa = () => ({ brand: 'visa', last4: '4242', exp_month: 9, exp_year: 2029 });

/** A page of the payment link (text/html), as the pay routes render it for Nordlicht Fibre. */
const payPage = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · Nordlicht Fibre</title></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`;
const LINK_NOT_VALID = { name: 'link_not_valid', detail: payPage('Link not valid', 'This payment link is invalid or has expired.') };
const PAYMENT_IN_PROGRESS = {
  name: 'payment_in_progress',
  detail: payPage('Payment in progress', 'A payment with this link is being processed; reload this page in a moment.'),
};

// The subscriber operations' examples, by operationId (see ./index.ts): a whole body per 2xx, each error case's `detail`.
export const SUBSCRIBER_EXAMPLES: ExampleMap = {
  // POST /auth/login
  login: {
    200: {
      access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJleGFtcGxlIn0.c2lnbmF0dXJl',
      token_type: 'bearer',
      expires_in: 3600,
      role: 'service_provider',
    },
    401: [{ name: 'invalid_credentials', detail: 'Invalid credentials' }],
    422: [{ name: 'email_invalid', detail: 'email: Invalid email address' }],
    429: [{ name: 'account_locked', detail: 'Too many failed logins for this account from this network; retry in 15 minutes' }],
  },
  // POST /auth/set-password
  setPassword: {
    200: { success: true, message: 'Password set; you can now log in' },
    400: [{ name: 'this_link_is_invalid_already', detail: 'This link is invalid, already used, or expired' }],
    422: [{ name: 'password_too_short', detail: 'password: Too small: expected string to have >=8 characters' }],
    429: [{ name: 'address_locked', detail: 'Too many invalid links from this address; retry in 15 minutes' }],
  },
  // GET /subscriber/me
  getSubscriberMe: {
    200: {
      subscriber: {
        id: 'f6242bce-b1f4-42b1-874b-90c43601855f',
        customer_number: 'FMCF-6088',
        first_name: 'Erika',
        last_name: 'Mustermann',
        email: 'helga.brandt@example.com',
        phone: '+49 151 23456789',
        created_at: '2026-11-25T22:35:44.888Z',
      },
      subscriptions: [
        {
          id: '6c61a98e-7669-4a6a-a44b-c0d69389cbf6',
          status: 'ACTIVE',
          billed_by: 'service',
          plan: {
            plan_version_id: 'a2bd2eb3-6329-4aab-813e-9df531664a34',
            name: 'Fast',
            monthly_price: '30.00',
            currency: 'EUR',
            download_mbps: 500,
            upload_mbps: 100,
          },
          billing_day: 1,
          billing_day_effective_from: null,
          service_address: {
            street: 'Invalidenstraße',
            house_number: '174',
            postal_code: '10115',
            city: 'Berlin',
            province: null,
            country: 'DE',
            unit: '1A',
          },
          activated_at: '2026-01-10T09:00:00.000Z',
          canceled_at: null,
          ended_at: null,
          created_at: '2026-11-25T22:35:45.016Z',
        },
      ],
      checkout_sessions: [],
      provider: {
        id: '981a13ea-c370-415b-9ce3-442ff34d08ff',
        name: 'Nordlicht Fibre',
        support_email: 'support+7m66f@nordlicht-fibre.example',
        branding: nordlichtBranding(),
      },
    },
  },
  // GET /subscriber/me/details
  getSubscriberDetails: {
    200: {
      id: '3ac324b8-092a-4a09-8a79-7ccccbf3dc9a',
      customer_number: 'WPKP-8222',
      first_name: 'Erika',
      last_name: 'Mustermann',
      email: 'helga.brandt@example.com',
      phone: '+49 151 23456789',
      created_at: '2026-11-25T22:35:47.107Z',
      invoice_contact: { first_name: null, last_name: null, email: null, phone: null },
      invoice_address: { street: 'Invalidenstraße', house_number: '5', postal_code: '10115', city: 'Berlin', country: 'DE' },
      payment_method: null,
      updated_at: '2026-11-25T22:35:47.107Z',
    },
    404: [noSubscriberRecord('no_subscriber_record_for_this')],
  },
  // PATCH /subscriber/me/password
  changeSubscriberPassword: {
    200: { success: true, message: 'Password changed' },
    400: [{ name: 'current_password_is_incorrect', detail: 'Current password is incorrect' }],
    422: [
      {
        name: 'new_password_too_small_expected',
        detail: 'new_password: Too small: expected string to have >=10 characters',
      },
    ],
    429: [{ name: 'account_locked', detail: 'Too many wrong passwords for this account from this network; retry in 15 minutes' }],
  },
  // GET /subscriber/me/invoices
  listSubscriberInvoices: {
    200: [
      {
        id: 'c82abbff-e522-4146-9986-5206311edc55',
        number: 'INV-T-MN7T7KBRSS',
        kind: 'monthly',
        invoice_date: '2026-11-01',
        due_date: '2026-11-01',
        period: '2026-11',
        total: '31.50',
        currency: 'EUR',
        status: 'open',
        paid_at: null,
        subscription_id: '73d28705-4e22-4e55-b3d7-e18506983952',
        lines: [{ kind: 'subscription', description: 'Fast', amount: '31.50' }],
      },
      {
        id: 'ee251818-a33f-4a51-ae24-f180d56016f7',
        number: 'INV-T-UIKA9WYKWX',
        kind: 'monthly',
        invoice_date: '2026-10-01',
        due_date: '2026-10-01',
        period: '2026-10',
        total: '30.00',
        currency: 'EUR',
        status: 'paid',
        paid_at: '2026-10-01T12:00:00.000Z',
        subscription_id: '73d28705-4e22-4e55-b3d7-e18506983952',
        lines: [{ kind: 'subscription', description: 'Fast', amount: '30.00' }],
      },
      {
        id: '60dcfa44-a815-486a-9e81-739885e484b7',
        number: 'INV-T-7PK4QBW642',
        kind: 'monthly',
        invoice_date: '2026-09-01',
        due_date: '2026-09-01',
        period: '2026-09',
        total: '30.00',
        currency: 'EUR',
        status: 'paid',
        paid_at: '2026-09-01T12:00:00.000Z',
        subscription_id: '73d28705-4e22-4e55-b3d7-e18506983952',
        lines: [{ kind: 'subscription', description: 'Fast', amount: '30.00' }],
      },
    ],
    404: [noSubscriberRecord('no_subscriber_record_for_this')],
  },
  // GET /subscriber/me/credit-notes
  listSubscriberCreditNotes: {
    200: [
      {
        id: 'cn_7KQ2M9XA',
        number: 'CN-202611-7KQ2M9XA',
        state: 'open',
        amount: '12.50',
        currency: 'EUR',
        reason: 'Plan change Fibre Faster 1000 → Fibre Fast 500, 16 to 30 November',
        issued_at: '2026-11-16T10:06:00.000Z',
        subscription_id: '9e2d4a7c-1b3f-4c5d-8e6f-a0b1c2d3e4f5',
        pdf_url: '/api/v1/credit-notes/cn_7KQ2M9XA/pdf',
      },
    ],
    404: [noSubscriberRecord('no_subscriber_record')],
    502: [CREDIT_NOTES_UNREACHABLE],
  },
  // GET /subscriber/me/usage
  getSubscriberUsage: {
    200: {
      status: 'ok',
      months: [
        { month: '2026-05', download_gb: 123.46, upload_gb: 1, partial: false },
        { month: '2026-06', download_gb: 0, upload_gb: 0, partial: false },
        { month: '2026-07', download_gb: 0.01, upload_gb: 0, partial: false },
        { month: '2026-08', download_gb: 0, upload_gb: 0, partial: false },
        { month: '2026-09', download_gb: 0, upload_gb: 0, partial: false },
        { month: '2026-10', download_gb: 0, upload_gb: 0, partial: false },
        { month: '2026-11', download_gb: 42, upload_gb: 7, partial: true },
      ],
    },
    404: [noSubscriberRecord('no_subscriber_record_for_this')],
  },
  // GET /subscriber/status-history
  getSubscriberStatusHistory: {
    200: {
      events: [
        {
          id: 'da6465d9-ff43-446a-8cb3-560012cbc789',
          started_at: '2026-11-16T09:00:00.000Z',
          resolved_at: null,
          ongoing: true,
          kind: 'maintenance',
          description: null,
        },
        {
          id: '7b587f46-fa43-417f-b004-2fc1f102408d',
          started_at: '2026-10-01T08:00:00.000Z',
          resolved_at: '2026-10-01T11:00:00.000Z',
          ongoing: false,
          kind: 'outage',
          description: 'Fibre cut',
        },
      ],
    },
  },
  // PATCH /subscriber/me/billing-day
  changeSubscriberBillingDay: {
    200: {
      subscription_id: '9e2d4a7c-1b3f-4c5d-8e6f-a0b1c2d3e4f5',
      billing_day: 5,
      effective_period: '2026-12-01',
      next_send_date: '2026-12-05',
    },
    404: [{ name: 'subscription_not_found', detail: 'Subscription not found' }],
    409: [{ name: 'cancelled', detail: 'The subscription is cancelled; its billing day can no longer change' }],
    422: [{ name: 'billing_day_out_of_range', detail: 'billing_day: Too big: expected number to be <=10' }],
    502: [
      {
        name: 'billing_unreachable',
        detail: 'The billing system did not accept the new billing day; nothing changed, try again in a few minutes',
      },
    ],
  },
  // GET /subscriber/me/payment-method
  getSubscriberPaymentMethod: {
    200: { payment_method: savedVisa() },
    404: [noSubscriberRecord('no_subscriber_record')],
    409: [NO_CARD_PROCESSOR],
  },
  // POST /subscriber/me/payment-method/setup
  startSubscriberCardSetup: {
    201: { client_secret: 'seti_3QxK7mB2nP9rT4vW_secret_Lc8dF1gH5jK0', status: 'requires_confirmation' },
    404: [noSubscriberRecord('no_subscriber_record')],
    409: [NO_CARD_PROCESSOR],
    502: [CARD_PROCESSOR_UNREACHABLE],
  },
  // POST /subscriber/me/payment-method/confirm
  confirmSubscriberCardSetup: {
    200: { payment_method: savedVisa() },
    402: [{ name: 'card_declined', detail: 'The card was declined; nothing was saved' }],
    404: [noSubscriberRecord('no_subscriber_record')],
    409: [
      {
        name: 'no_setup',
        detail: 'No card setup with this client_secret is in progress; start one with POST /subscriber/me/payment-method/setup',
      },
      { name: 'setup_expired', detail: 'The card setup is no longer valid; start a new one' },
    ],
    422: [{ name: 'incorrect_number', detail: 'card_number: the card number is incorrect' }],
    502: [CARD_PROCESSOR_UNREACHABLE],
  },
  // GET /pay/{token}
  paymentPage: {
    200: payPage('Pay your invoice', 'INV-202611-7KQ2M9XA · 44.99 EUR · due 2026-11-15'),
    404: [LINK_NOT_VALID],
    409: [PAYMENT_IN_PROGRESS],
    502: [
      {
        name: 'processor_unreachable',
        detail: payPage('Payment not possible', 'Card payments are unavailable right now; please try again in a few minutes.'),
      },
    ],
  },
  // GET /pay/{token}/complete
  paymentPageReturn: {
    200: payPage('Invoice paid', 'Thank you: the invoice is paid.'),
    402: [
      { name: 'not_completed', detail: payPage('Payment not completed', 'The payment was not completed. Try again or use another card.') },
    ],
    404: [{ name: 'other_invoice', detail: payPage('Payment not possible', 'This payment is not known for this invoice.') }],
    409: [{ name: 'processing', detail: payPage('Payment not possible', 'The payment is being processed; reload this page in a moment.') }],
    422: [{ name: 'no_payment_intent', detail: 'querystring/payment_intent: Required' }],
    502: [
      {
        name: 'processor_unreachable',
        detail: payPage('Payment not possible', 'Card payments are unavailable right now; please try again in a few minutes.'),
      },
    ],
  },
  // POST /webhooks/stripe
  receiveStripeEvent: {
    200: { received: true, outcome: 'applied' },
    400: [{ name: 'bad_signature', detail: 'The Stripe-Signature does not verify' }],
    502: [{ name: 'stripe_unreachable', detail: 'The card processor is unreachable; redeliver later' }],
    503: [{ name: 'not_configured', detail: 'Stripe events are not configured (STRIPE_WEBHOOK_SECRET)' }],
  },
  // POST /pay/{token}
  payWithPaymentLink: {
    200: payPage('Invoice paid', 'INV-202611-7KQ2M9XA · 44.99 EUR is paid. Thank you.'),
    402: [
      {
        name: 'card_declined',
        detail: payPage('Payment not completed', 'The card was declined. Try another card.'),
      },
    ],
    400: [
      {
        name: 'card_number_refused',
        detail: payPage('Payment not possible', 'Card numbers are never sent to this server; pay with the card form on this page.'),
      },
    ],
    404: [LINK_NOT_VALID],
    409: [PAYMENT_IN_PROGRESS],
    422: [
      {
        name: 'incorrect_number',
        detail: payPage('Payment not completed', 'The card number is incorrect.'),
      },
    ],
    502: [
      {
        name: 'processor_unreachable',
        detail: payPage('Payment not possible', 'The card processor is unreachable right now; try again in a few minutes.'),
      },
    ],
  },
  // GET /api/v1/credit-notes/{id}/pdf
  getCreditNotePdf: {
    200: '%PDF-1.7 (the credit note CN-202611-7KQ2M9XA as application/pdf)',
    404: [{ name: 'credit_note_not_found', detail: 'Credit note not found' }],
    422: [{ name: 'id_invalid', detail: 'id: Invalid string: must match pattern /^[A-Za-z0-9_-]+$/' }],
    502: [CREDIT_NOTES_UNREACHABLE],
  },
  // POST /api/v1/provider/users/invite
  inviteProviderUser: {
    201: {
      id: '787dba19-a13b-47b6-9d8d-5ec179443f03',
      email: 'new.staff@nordlicht-fibre.example',
      first_name: 'Nora',
      last_name: 'Neu',
      sp_role: 'support',
      status: 'invited',
      created_at: '2026-11-16T10:00:00.000Z',
    },
    400: MALFORMED_IDEMPOTENCY_KEY,
    409: [{ name: 'a_user_with_this_email', detail: 'A user with this email already exists' }],
    422: [
      {
        name: 'sp_role_invalid_option_expected',
        detail: 'sp_role: Invalid option: expected one of "sp_admin"|"support"|"sales"|"bookkeeping"',
      },
      { name: 'email_invalid_email_address', detail: 'email: Invalid email address' },
    ],
  },
  // GET /api/v1/provider/users
  listProviderUsers: {
    200: [
      {
        id: '53badf8d-2ffb-4091-a2b5-2cf6962072f3',
        email: 'list-one@nordlicht-fibre.example',
        first_name: null,
        last_name: null,
        sp_role: 'bookkeeping',
        status: 'invited',
        created_at: '2026-11-16T10:00:00.000Z',
      },
      {
        id: '784246e9-313e-4829-a567-8bd8848eff41',
        email: 'helga.brandt@example.com',
        first_name: 'Test',
        last_name: 'User',
        sp_role: 'sp_admin',
        status: 'active',
        created_at: '2026-11-25T22:41:04.114Z',
      },
    ],
  },
  // POST /api/v1/provider/users/{user_id}/resend-invite
  resendProviderUserInvite: {
    200: { ok: true },
    404: [{ name: 'user_not_found', detail: 'User not found' }],
    409: [
      {
        name: 'this_user_has_already_set',
        detail: 'This user has already set a password; use the password reset instead',
      },
    ],
    422: [{ name: 'user_id_invalid_uuid', detail: 'user_id: Invalid UUID' }],
  },
  withdrawProviderUserInvite: {
    200: { ok: true },
    404: [{ name: 'user_not_found', detail: 'User not found' }],
    409: [
      {
        name: 'this_user_has_already_set',
        detail: 'This user has already set a password; only an invitation not yet accepted can be withdrawn',
      },
    ],
    422: [{ name: 'user_id_invalid_uuid', detail: 'user_id: Invalid UUID' }],
  },
};
