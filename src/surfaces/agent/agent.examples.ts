import type { ExampleMap } from '../../plugins/openapi-examples.js';

// One example per status of each /agent operation, by operationId: one conversation with the demo
// data's "invoiced" customer (Helga Brandt, Fibre Fast 500 at Invalidenstraße 12a, Nordlicht Fibre)
// on 16 November 2026. Error statuses list the codes they can carry (plugins/openapi-examples.ts
// writes each as the envelope with its next step); 401/403 of the credential checks, 429 and 500
// come from the defaults there.

const CUSTOMER_ID = '5b0e6c1a-3d2f-4e8b-9a71-c4d2e6f80a13';
const SUBSCRIPTION_ID = '9e2d4a7c-1b3f-4c5d-8e6f-a0b1c2d3e4f5';
const PLAN_FAST = {
  plan_version_id: '2c4e6a80-1d3f-4b5c-9e7a-0f1e2d3c4b5a',
  name: 'Fibre Fast 500',
  monthly_price: '44.99',
  currency: 'EUR',
};
const PLAN_FASTER = {
  plan_version_id: '7a9c1e3b-5d7f-4a2c-8b4d-6e8f0a2c4e6b',
  name: 'Fibre Faster 1000',
  monthly_price: '69.99',
  currency: 'EUR',
};
const LOCATION = {
  building_id: 'd41f7b2e-6c8a-4e1d-b3f5-7a9c0e2d4f61',
  address: 'Invalidenstraße 12a, 10115 Berlin',
  street: 'Invalidenstraße',
  house_number: '12a',
  postal_code: '10115',
  city: 'Berlin',
  country: 'DE',
  unit_label: '1G',
};
const INVOICE_OPEN = {
  invoice_id: 'f3a5c7e9-0b2d-4f6a-8c1e-3b5d7f9a1c2e',
  invoice_number: 'INV-202611-7KQ2M9XA',
  invoice_date: '2026-11-01',
  due_date: '2026-11-15',
  amount: '44.99',
  currency: 'EUR',
  overdue: true,
};
const PAYMENT = {
  invoice_id: 'b8d0f2a4-6c8e-4a1b-9d3f-5e7a9c1b3d5f',
  invoice_number: 'INV-202610-3RZP8W2D',
  invoice_date: '2026-10-01',
  amount: '44.99',
  currency: 'EUR',
  paid_at: '2026-10-03T08:12:44.000Z',
  payment_method: 'card',
  payment_reference: 'PAY-20261001-H7K2QX',
};
const VALIDATION = (field: string, message: string) => ({
  code: 'validation_error' as const,
  message: 'Request validation failed',
  details: [{ field, message }],
});
const NOT_ONE_OF_YOURS = {
  code: 'not_found' as const,
  message: 'Subscription not found',
};
const PLAN_REFUSALS = [
  {
    code: 'plan_change_limit' as const,
    message: 'This customer already changed plan today (UTC calendar day); the next change is possible from tomorrow',
  },
  { code: 'subscription_not_active' as const, message: 'The subscription is SUSPENDED; only an ACTIVE subscription can change plan' },
  { code: 'same_plan' as const, message: 'The subscription is already on this plan version' },
  { code: 'plan_not_available' as const, message: 'This plan version cannot be chosen (it is inactive or priced in another currency)' },
];
const ADJUSTMENT = { type: 'next_invoice_line', amount: '12.50', currency: 'EUR', days: 15, days_in_period: 30, due_in_days: 15 };

// The statuses every verified customer route shares (its verifiedErrors).
const VERIFIED = {
  400: [VALIDATION('customerId', 'Too big: expected string to have <=100 characters')],
  401: ['verification_required', 'session_invalid'],
  403: ['invalid_api_key', 'feature_not_enabled', 'session_customer_mismatch'],
  404: ['customer_not_found'],
};
const IDEMPOTENT_WRITE = {
  409: ['idempotency_in_progress'],
  422: ['idempotency_key_reused'],
};

export const AGENT_EXAMPLES: ExampleMap = {
  searchCustomers: {
    200: {
      ambiguous: false,
      match_count: 1,
      match_count_capped: false,
      incomplete: false,
      matches: [
        {
          customer_id: CUSTOMER_ID,
          name_masked: 'Helga B.',
          email_masked: 'h***@e***.com',
          phone_masked: '***57',
          customer_number_masked: '****-**17',
          service_locations: [{ address: 'Invalidenstraße 12a, 10115 Berlin', unit_label: '1G', subscription_status: 'ACTIVE' }],
        },
      ],
    },
    400: [VALIDATION('q', 'Too small: expected string to have >=2 characters')],
    403: ['invalid_api_key', 'feature_not_enabled'],
  },
  issueVerificationCode: {
    202: { sent: true, channel: 'email', destination_masked: 'h***@e***.com', expires_at: '2026-11-16T10:10:00.000Z' },
    400: [VALIDATION('customer_id', 'must be a UUID')],
    403: ['invalid_api_key', 'feature_not_enabled'],
    404: ['customer_not_found'],
    422: [{ code: 'unprocessable', message: 'The customer has no mobile number on file; use channel "email"' }],
    502: [{ code: 'dependency_failed', message: 'The SMS gateway did not accept the message; use channel "email" or retry later' }],
    503: [
      { code: 'dependency_unconfigured', message: 'SMS one-time codes are not configured for this provider account; use channel "email"' },
    ],
  },
  checkVerificationCode: {
    200: {
      verified_session: 'vs_k3Jx0c2H9mQqYyZ1aB7dE5fG8hI4jK6lM0nO2pQ3rS4',
      customer_id: CUSTOMER_ID,
      expires_at: '2026-11-16T10:17:00.000Z',
    },
    400: [VALIDATION('code', 'must be 6 digits')],
    401: [
      { code: 'invalid_code', message: 'The code is not correct; 3 attempts left' },
      { code: 'code_expired', message: 'The code has expired (codes are valid 10 minutes); issue a new one' },
    ],
    403: [
      { code: 'too_many_attempts', message: 'Too many wrong codes: this code is locked; issue a new one with POST /agent/verify/issue' },
      'invalid_api_key',
      'feature_not_enabled',
    ],
    404: ['customer_not_found'],
  },
  getCustomerProfile: {
    200: {
      customer_id: CUSTOMER_ID,
      customer_number: 'KXRT-0417',
      contacts: {
        contract: { first_name: 'Helga', last_name: 'Brandt', email: 'helga.brandt@example.com', phone: '0151 24681357' },
        invoice: { first_name: null, last_name: null, email: null, phone: null },
      },
      invoice_address: {
        street: 'Invalidenstraße',
        house_number: '12a',
        postal_code: '10115',
        city: 'Berlin',
        country: 'DE',
        formatted: 'Invalidenstraße 12a, 10115 Berlin',
      },
      service_locations: [{ ...LOCATION, subscription_id: SUBSCRIPTION_ID }],
      subscriptions: [
        {
          subscription_id: SUBSCRIPTION_ID,
          status: 'ACTIVE',
          suspended_reason: null,
          plan: { ...PLAN_FAST, download_mbps: 500, upload_mbps: 100 },
          service_location: LOCATION,
          activated_at: '2025-10-12T10:00:00.000Z',
          ended_at: null,
          billing_day: 1,
        },
      ],
      portal_account: 'not_activated',
    },
    ...VERIFIED,
  },
  getBillingSummary: {
    200: {
      customer_id: CUSTOMER_ID,
      currency: 'EUR',
      balance: '44.99',
      open_invoice_count: 1,
      open_invoices: [INVOICE_OPEN],
      next_invoice_date: '2026-12-01',
      last_payment: PAYMENT,
    },
    ...VERIFIED,
  },
  listPayments: {
    200: {
      customer_id: CUSTOMER_ID,
      total_count: 12,
      payments: [
        PAYMENT,
        {
          ...PAYMENT,
          invoice_id: 'e1c3a5b7-9d0f-4e2a-8b4c-6d8e0f2a4c6e',
          invoice_number: 'INV-202609-M4T7V1NS',
          invoice_date: '2026-09-01',
          paid_at: '2026-09-02T07:41:09.000Z',
          payment_reference: 'PAY-20260901-Q3W8ZE',
        },
      ],
    },
    ...VERIFIED,
    400: [VALIDATION('limit', 'Too big: expected number to be <=100')],
  },
  getNetworkHealth: {
    200: {
      customer_id: CUSTOMER_ID,
      checked_at: '2026-11-16T10:04:31.000Z',
      subscriptions: [
        {
          subscription_id: SUBSCRIPTION_ID,
          status: 'ACTIVE',
          suspended_reason: null,
          plan_name: 'Fibre Fast 500',
          service_location: LOCATION,
          activation: { activated: true, activated_at: '2025-10-12T10:00:00.000Z', ended_at: null },
          provisioning: {
            state: 'provisioned',
            last_job: { kind: 'provisioning.port', status: 'succeeded', attempts: 1, updated_at: '2025-10-12T09:58:20.000Z' },
          },
          install: null,
          modem: {
            state: 'online',
            last_seen_at: '2026-11-16T10:02:00.000Z',
            signal_dbm: -18.4,
            uptime_seconds: 1036800,
            reported_at: '2026-11-16T10:02:00.000Z',
          },
          incidents: [
            {
              kind: 'maintenance',
              description: 'Planned switch firmware update, Invalidenstraße',
              started_at: '2026-11-12T01:00:00.000Z',
              resolved_at: '2026-11-12T02:30:00.000Z',
            },
          ],
        },
      ],
    },
    ...VERIFIED,
  },
  listCustomerTickets: {
    200: {
      customer_id: CUSTOMER_ID,
      tickets: [
        {
          ticket_id: '0c2e4a6b-8d1f-4a3c-9e5b-7d9f1b3d5f70',
          subject: 'Internet drops every evening',
          status: 'open',
          priority: 'normal',
          queue: 'support',
          caller_verified: true,
          article:
            'Customer reports the connection drops every evening around 20:00 since Monday.\n\nDiagnosis:\nModem online, no open incident; likely in-home Wi-Fi congestion; needs a technician call-back.',
          created_at: '2026-11-10T18:22:05.000Z',
          updated_at: '2026-11-11T09:00:00.000Z',
        },
      ],
    },
    ...VERIFIED,
    400: [VALIDATION('limit', 'Too big: expected number to be <=100')],
  },
  updateCustomerContact: {
    200: {
      customer_id: CUSTOMER_ID,
      contact_type: 'contract',
      contact: { first_name: 'Helga', last_name: 'Brandt', email: 'helga.b@example.org', phone: '0151 24681357' },
      changed_fields: ['email'],
      applied_at: '2026-11-16T10:05:47.000Z',
    },
    ...VERIFIED,
    400: [VALIDATION('body', 'send at least one of first_name, last_name, email, phone')],
    409: [{ code: 'conflict', message: 'Another customer of this provider already uses this email address' }],
  },
  sendPortalLink: {
    202: { sent: true, action: 'resend_activation', destination_masked: 'h***@e***.com', expires_at: '2026-11-23T10:00:00.000Z' },
    ...VERIFIED,
    409: [
      { code: 'already_activated', message: 'The customer already chose a password; use action "password_reset" instead' },
      {
        code: 'portal_account_missing',
        message: 'This customer has no online account yet; send the set-up link with action "resend_activation"',
      },
      { code: 'conflict', message: "A login with this customer's email exists but belongs to another account; escalate with a ticket" },
    ],
  },
  resendInvoice: {
    202: {
      sent: true,
      invoice_id: INVOICE_OPEN.invoice_id,
      invoice_number: INVOICE_OPEN.invoice_number,
      destination_masked: 'h***@e***.com',
    },
    ...VERIFIED,
    404: [
      'customer_not_found',
      { code: 'not_found', message: 'No invoice with this id for this customer; take invoice_id from billing-summary or payments' },
    ],
  },
  addCustomerNote: {
    201: {
      note_id: '6f8a0c2e-4b6d-4f1a-8c3e-5a7c9e1b3d5f',
      customer_id: CUSTOMER_ID,
      author: 'ai_agent',
      created_at: '2026-11-16T10:06:12.000Z',
    },
    ...VERIFIED,
    ...IDEMPOTENT_WRITE,
  },
  previewPlanChange: {
    200: {
      subscription_id: SUBSCRIPTION_ID,
      current_plan: PLAN_FAST,
      new_plan: PLAN_FASTER,
      effective_date: '2026-11-16',
      one_time_adjustment: ADJUSTMENT,
      proration_factor: 0.5,
      quote_token:
        'eyJhbGciOiJIUzI1NiIsInR5cCI6InF1b3RlK2p3dCJ9.eyJxIjp7InMiOiI3YzFlM2E1Yi05ZDJmLTRiNmEtOGMxZS0zZjVhN2I5YzFkM2UifSwiaWF0IjoxNzk0NzM2MDAwLCJleHAiOjE3OTQ3MzY5MDB9.3q2-7wWgX0e2cZl4m9s2vY1kQ5tR8uJ0pN6aB4dF7hE',
    },
    ...VERIFIED,
    404: ['customer_not_found', NOT_ONE_OF_YOURS],
    409: PLAN_REFUSALS,
  },
  applyPlanChange: {
    200: {
      subscription_id: SUBSCRIPTION_ID,
      plan_change_id: '3d5f7b9a-1c3e-4a5b-8d7f-9b1d3f5a7c9e',
      effective_date: '2026-11-16',
      current_plan: PLAN_FAST,
      new_plan: PLAN_FASTER,
      one_time_adjustment: ADJUSTMENT,
    },
    ...VERIFIED,
    400: [
      {
        code: 'confirmation_required',
        message: 'The customer must confirm the previewed cost: send confirm: true to apply the plan change',
      },
      VALIDATION('plan_version_id', 'Invalid UUID'),
      { code: 'bad_request', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' },
    ],
    401: ['verification_required', 'session_invalid', 'quote_invalid', 'quote_expired'],
    404: ['customer_not_found', NOT_ONE_OF_YOURS],
    409: [...PLAN_REFUSALS, 'quote_changed', 'idempotency_in_progress'],
    422: ['idempotency_key_reused'],
  },
  createTicket: {
    201: {
      ticket_id: '0c2e4a6b-8d1f-4a3c-9e5b-7d9f1b3d5f70',
      status: 'open',
      priority: 'normal',
      subject: 'Internet drops every evening',
      queue: 'support',
      created_at: '2026-11-16T10:08:40.000Z',
    },
    400: [VALIDATION('customer_id', 'send customer_id or contact_email')],
    403: ['invalid_api_key', 'feature_not_enabled'],
    404: ['customer_not_found'],
    ...IDEMPOTENT_WRITE,
  },
};
