import type { ExampleMap } from '../../plugins/openapi-examples.js';
import { DEMO_FIXED_IDS } from '../../demo/fixed-ids.js';

// The 2xx example of each /agent operation, by operationId: one conversation with the demo data's
// "invoiced" customer (Helga Brandt, Fibre Fast 500 at Invalidenstraße 12a, Nordlicht Fibre) on
// 16 November 2026. The error statuses, with the codes each carries, are in agent.errors.ts.

// The customer, subscription and plan ids are the demo's own (src/demo/fixed-ids.ts): an example
// call works as it is against `npm start`.
const CUSTOMER_ID = DEMO_FIXED_IDS.invoiced.customer;
const SUBSCRIPTION_ID = DEMO_FIXED_IDS.invoiced.subscription;
const PLAN_BASIC = {
  plan_version_id: DEMO_FIXED_IDS.plans.basic,
  name: 'Fibre Basic 100',
  monthly_price: '29.99',
  currency: 'EUR',
};
const PLAN_FAST = {
  plan_version_id: DEMO_FIXED_IDS.plans.fast,
  name: 'Fibre Fast 500',
  monthly_price: '44.99',
  currency: 'EUR',
};
const PLAN_FASTER = {
  plan_version_id: DEMO_FIXED_IDS.plans.faster,
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
// Deprecated fields (proration_factor, due_in_days) are left out of the examples (issue 31 §7).
const ADJUSTMENT = { type: 'next_invoice_line', amount: '12.50', currency: 'EUR', days: 15, days_in_period: 30 };

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
  },
  issueVerificationCode: {
    202: { sent: true, channel: 'email', destination_masked: 'h***@e***.com', expires_at: '2026-11-16T10:10:00.000Z' },
  },
  checkVerificationCode: {
    200: {
      verified_session: 'vs_k3Jx0c2H9mQqYyZ1aB7dE5fG8hI4jK6lM0nO2pQ3rS4',
      customer_id: CUSTOMER_ID,
      expires_at: '2026-11-16T10:17:00.000Z',
    },
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
  },
  updateCustomerContact: {
    200: {
      customer_id: CUSTOMER_ID,
      contact_type: 'contract',
      contact: { first_name: 'Helga', last_name: 'Brandt', email: 'helga.b@example.org', phone: '0151 24681357' },
      changed_fields: ['email'],
      applied_at: '2026-11-16T10:05:47.000Z',
      confirmation_sent_to_masked: 'h***@e***.com',
    },
  },
  sendPortalLink: {
    202: { sent: true, action: 'resend_activation', destination_masked: 'h***@e***.com', expires_at: '2026-11-23T10:00:00.000Z' },
  },
  resendInvoice: {
    202: {
      sent: true,
      invoice_id: INVOICE_OPEN.invoice_id,
      invoice_number: INVOICE_OPEN.invoice_number,
      destination_masked: 'h***@e***.com',
    },
  },
  listRecentChanges: {
    200: {
      customer_id: CUSTOMER_ID,
      changes: [
        {
          change_id: '4e6a8c0e-2b4d-4f6a-9c1e-3a5c7e9b1d3f',
          kind: 'plan',
          summary: 'Plan changed from Fibre Fast 500 to Fibre Faster 1000',
          changed_at: '2026-11-16T10:05:02.000Z',
          undo_state: 'available',
          can_undo: true,
          undo_until: '2026-11-17T10:05:02.000Z',
          confirmation_sent_to_masked: 'h***@e***.com',
        },
      ],
    },
  },
  resendChangeConfirmation: {
    202: {
      sent: true,
      change_id: '4e6a8c0e-2b4d-4f6a-9c1e-3a5c7e9b1d3f',
      destination_masked: 'h***@e***.com',
      undo_until: '2026-11-17T10:05:02.000Z',
    },
  },
  addCustomerNote: {
    201: {
      note_id: '6f8a0c2e-4b6d-4f1a-8c3e-5a7c9e1b3d5f',
      customer_id: CUSTOMER_ID,
      author: 'ai_agent',
      created_at: '2026-11-16T10:06:12.000Z',
    },
  },
  listPlanOptions: {
    200: {
      subscription_id: SUBSCRIPTION_ID,
      subscription_status: 'ACTIVE',
      can_change_plan: true,
      current_plan: { ...PLAN_FAST, download_mbps: 500, upload_mbps: 100 },
      plans: [
        { ...PLAN_BASIC, download_mbps: 100, upload_mbps: 20, change: 'downgrade' },
        { ...PLAN_FASTER, download_mbps: 1000, upload_mbps: 300, change: 'upgrade' },
      ],
    },
  },
  previewPlanChange: {
    200: {
      subscription_id: SUBSCRIPTION_ID,
      current_plan: PLAN_FAST,
      new_plan: PLAN_FASTER,
      effective_date: '2026-11-16',
      one_time_adjustment: ADJUSTMENT,
      escalation_required: false,
      quote_token:
        'eyJhbGciOiJIUzI1NiIsInR5cCI6InF1b3RlK2p3dCJ9.eyJxIjp7InMiOiI3YzFlM2E1Yi05ZDJmLTRiNmEtOGMxZS0zZjVhN2I5YzFkM2UifSwiaWF0IjoxNzk0NzM2MDAwLCJleHAiOjE3OTQ3MzY5MDB9.3q2-7wWgX0e2cZl4m9s2vY1kQ5tR8uJ0pN6aB4dF7hE',
    },
  },
  applyPlanChange: {
    200: {
      subscription_id: SUBSCRIPTION_ID,
      plan_change_id: '3d5f7b9a-1c3e-4a5b-8d7f-9b1d3f5a7c9e',
      effective_date: '2026-11-16',
      current_plan: PLAN_FAST,
      new_plan: PLAN_FASTER,
      one_time_adjustment: ADJUSTMENT,
      charge_summary:
        'Nothing was charged today: 12.50 EUR for the rest of this month will be a line on the next monthly invoice. The new monthly price is 69.99 EUR from 2026-11-16.',
      quote_matched: true,
    },
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
  },
};
