import type { ExampleMap } from '../../../plugins/openapi-examples.js';
import { MALFORMED_IDEMPOTENCY_KEY, PLAN_VERSION_NOT_FOUND, SUBSCRIPTION_NOT_FOUND } from './common.examples.js';

const BOOKING_LINK_NOT_FOUND = { name: 'booking_link_not_found_or', detail: 'Booking link not found or expired' };
const TOKEN_TOO_LONG = { name: 'token_too_long', detail: 'token: Too big: expected string to have <=200 characters' };
const PLAN_CHANGE_SUSPENDED = {
  name: 'the_subscription_is_suspended_only',
  detail: 'The subscription is SUSPENDED; only an ACTIVE subscription can change plan',
};
const PLAN_CHANGE_SAME_PLAN = { name: 'the_subscription_is_already_on', detail: 'The subscription is already on this plan version' };
const PLAN_VERSION_ID_MISSING = {
  name: 'plan_version_id_invalid_input',
  detail: 'plan_version_id: Invalid input: expected string, received undefined',
};
const END_DATE_PAST = { name: 'end_date_must_be_today', detail: 'end_date: must be today (2026-11-16, UTC) or later' };

// The provisioning operations' examples, by operationId (see ./index.ts): a whole body per 2xx, each error case's `detail`.
export const PROVISIONING_EXAMPLES: ExampleMap = {
  // POST /provisioning/provider-initiated
  provisionProviderInitiated: {
    200: {
      route: 'provision',
      job_id: 'd08567a7-75c4-4e92-8d85-28b32ad22c14',
      subscription_id: '5c902d5c-d0e7-421f-ae2e-ac21d89f58c1',
      subscriber_id: '483b1e95-2895-4b61-a769-a26a5f6c3926',
      message: 'Subscription already exists (idempotent replay)',
    },
    201: {
      route: 'provision',
      job_id: 'f98fe8fe-b8ce-45a3-90a9-91709e388bd7',
      subscription_id: 'f8e2c7a6-a3c6-4ba1-85bd-2aed187c7db5',
      subscriber_id: 'cec8ab28-14c3-4e0e-9e8a-78b5271e0482',
      message: 'Subscription created and active; the port is being provisioned (poll the job or wait for provisioning.completed)',
    },
    400: MALFORMED_IDEMPOTENCY_KEY,
    409: [
      { name: 'unit_already_has_a_pending', detail: 'Unit already has a pending or active subscription' },
      { name: 'location_already_has_a_pending', detail: 'Location already has a pending or active subscription' },
    ],
    422: [
      { name: 'plan_version_id_unknown_plan', detail: 'plan_version_id: unknown plan version for this provider' },
      { name: 'plan_version_id_this_plan', detail: 'plan_version_id: this plan version is no longer orderable' },
      {
        name: 'location_hash_required_for_delivery',
        detail: 'location_hash: required for delivery_mode direct (the default); or send delivery_mode home_drop with unit_id',
      },
    ],
  },
  // POST /provisioning/bulk
  provisionBulk: {
    200: {
      results: [
        {
          index: 0,
          status: 'created',
          route: 'provision',
          subscription_id: '21fd784c-4f4a-4f0a-9104-6122fcfe1570',
          job_id: '0fecf2e2-7b8a-4f7f-a89e-e5a25353ef42',
        },
        {
          index: 1,
          status: 'created',
          route: 'install',
          subscription_id: 'fafb11d9-0d49-4346-986d-29ebcf77197a',
          job_id: null,
        },
        {
          index: 2,
          status: 'replayed',
          route: 'provision',
          subscription_id: '21fd784c-4f4a-4f0a-9104-6122fcfe1570',
          job_id: '0fecf2e2-7b8a-4f7f-a89e-e5a25353ef42',
        },
        {
          index: 3,
          status: 'error',
          error: 'location_hash: required for delivery_mode direct (the default); or send delivery_mode home_drop with unit_id',
        },
        { index: 4, status: 'error', error: 'plan_version_id: Invalid UUID' },
        { index: 5, status: 'error', error: 'Unit already has a pending or active subscription' },
        { index: 6, status: 'error', error: 'Invalid input: expected object, received string' },
      ],
    },
    400: MALFORMED_IDEMPOTENCY_KEY,
    409: [{ name: 'idempotency_in_progress', detail: 'A request with this Idempotency-Key is still in progress; retry shortly' }],
    422: [
      { name: 'items_too_small_expected_array', detail: 'items: Too small: expected array to have >=1 items' },
      { name: 'items_too_big_expected_array', detail: 'items: Too big: expected array to have <=500 items' },
    ],
  },
  // GET /provisioning/jobs/{job_id}
  getProvisioningJob: {
    200: {
      job_id: 'c19af81e-856f-41a0-83af-f18976754fe1',
      kind: 'provisioning.port',
      status: 'succeeded',
      attempts: 1,
      error: null,
      subscription_id: '2ea148a2-da1b-4f87-832a-d413dd16fb6c',
      created_at: '2026-11-16T10:00:00.000Z',
      updated_at: '2026-11-16T10:00:00.000Z',
    },
    404: [{ name: 'job_not_found', detail: 'Job not found' }],
    422: [{ name: 'job_id_invalid_uuid', detail: 'job_id: Invalid UUID' }],
  },
  // POST /provisioning/confirm-install
  confirmInstall: {
    200: {
      subscription_id: 'ca357411-936c-48f3-a0d0-94868c488168',
      status: 'PENDING_INSTALL',
      job_id: null,
      payment: 'collecting',
      message:
        'Installation confirmed; the first payment is being collected (saved card, else an emailed payment link); the subscription becomes ACTIVE and its port is provisioned when it is paid',
    },
    400: MALFORMED_IDEMPOTENCY_KEY,
    404: [SUBSCRIPTION_NOT_FOUND],
    409: [
      {
        name: 'the_unit_s_port_is',
        detail: "The unit's port is held by another subscription (pending, active, suspended, or cancelled and not yet ended)",
      },
      {
        name: 'install_job_is_created_it',
        detail: 'Install job is CREATED; it must be SHIPPED to confirm the installation',
      },
      {
        name: 'install_job_is_booking_sent',
        detail: 'Install job is BOOKING_SENT; it must be SHIPPED to confirm the installation',
      },
    ],
    422: [{ name: 'subscription_id_invalid_uuid', detail: 'subscription_id: Invalid UUID' }],
  },
  // GET /booking/{token}
  bookingPage: {
    200: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Book your installation · Nordlicht Fibre</title></head><body><main><h1>Book your installation</h1><p>Invalidenstraße 12a, 10115 Berlin, unit 1G: choose a four-hour window for the technician.</p></main></body></html>',
    404: [BOOKING_LINK_NOT_FOUND],
    422: [TOKEN_TOO_LONG],
  },
  // GET /booking/{token}/slots
  bookingSlots: {
    200: {
      time_zone: 'America/Toronto',
      status: 'BOOKING_SENT',
      bookable: true,
      move_in_date: '2026-12-01',
      booking: null,
      windows: [
        { starts_at: '2026-12-01T13:00:00.000Z', ends_at: '2026-12-01T17:00:00.000Z' },
        { starts_at: '2026-12-01T17:00:00.000Z', ends_at: '2026-12-01T21:00:00.000Z' },
        { starts_at: '2026-12-01T21:00:00.000Z', ends_at: '2026-12-02T01:00:00.000Z' },
        { starts_at: '2026-12-02T13:00:00.000Z', ends_at: '2026-12-02T17:00:00.000Z' },
        { starts_at: '2026-12-02T17:00:00.000Z', ends_at: '2026-12-02T21:00:00.000Z' },
        { starts_at: '2026-12-02T21:00:00.000Z', ends_at: '2026-12-03T01:00:00.000Z' },
        { starts_at: '2026-12-03T13:00:00.000Z', ends_at: '2026-12-03T17:00:00.000Z' },
        { starts_at: '2026-12-03T17:00:00.000Z', ends_at: '2026-12-03T21:00:00.000Z' },
        { starts_at: '2026-12-03T21:00:00.000Z', ends_at: '2026-12-04T01:00:00.000Z' },
        { starts_at: '2026-12-04T13:00:00.000Z', ends_at: '2026-12-04T17:00:00.000Z' },
        { starts_at: '2026-12-04T17:00:00.000Z', ends_at: '2026-12-04T21:00:00.000Z' },
        { starts_at: '2026-12-04T21:00:00.000Z', ends_at: '2026-12-05T01:00:00.000Z' },
        { starts_at: '2026-12-07T13:00:00.000Z', ends_at: '2026-12-07T17:00:00.000Z' },
        { starts_at: '2026-12-07T17:00:00.000Z', ends_at: '2026-12-07T21:00:00.000Z' },
        { starts_at: '2026-12-07T21:00:00.000Z', ends_at: '2026-12-08T01:00:00.000Z' },
        { starts_at: '2026-12-08T13:00:00.000Z', ends_at: '2026-12-08T17:00:00.000Z' },
        { starts_at: '2026-12-08T17:00:00.000Z', ends_at: '2026-12-08T21:00:00.000Z' },
        { starts_at: '2026-12-08T21:00:00.000Z', ends_at: '2026-12-09T01:00:00.000Z' },
        { starts_at: '2026-12-09T13:00:00.000Z', ends_at: '2026-12-09T17:00:00.000Z' },
        { starts_at: '2026-12-09T17:00:00.000Z', ends_at: '2026-12-09T21:00:00.000Z' },
        { starts_at: '2026-12-09T21:00:00.000Z', ends_at: '2026-12-10T01:00:00.000Z' },
        { starts_at: '2026-12-10T13:00:00.000Z', ends_at: '2026-12-10T17:00:00.000Z' },
        { starts_at: '2026-12-10T17:00:00.000Z', ends_at: '2026-12-10T21:00:00.000Z' },
        { starts_at: '2026-12-10T21:00:00.000Z', ends_at: '2026-12-11T01:00:00.000Z' },
        { starts_at: '2026-12-11T13:00:00.000Z', ends_at: '2026-12-11T17:00:00.000Z' },
        { starts_at: '2026-12-11T17:00:00.000Z', ends_at: '2026-12-11T21:00:00.000Z' },
        { starts_at: '2026-12-11T21:00:00.000Z', ends_at: '2026-12-12T01:00:00.000Z' },
        { starts_at: '2026-12-14T13:00:00.000Z', ends_at: '2026-12-14T17:00:00.000Z' },
        { starts_at: '2026-12-14T17:00:00.000Z', ends_at: '2026-12-14T21:00:00.000Z' },
        { starts_at: '2026-12-14T21:00:00.000Z', ends_at: '2026-12-15T01:00:00.000Z' },
        { starts_at: '2026-12-15T13:00:00.000Z', ends_at: '2026-12-15T17:00:00.000Z' },
        { starts_at: '2026-12-15T17:00:00.000Z', ends_at: '2026-12-15T21:00:00.000Z' },
        { starts_at: '2026-12-15T21:00:00.000Z', ends_at: '2026-12-16T01:00:00.000Z' },
        { starts_at: '2026-12-16T13:00:00.000Z', ends_at: '2026-12-16T17:00:00.000Z' },
        { starts_at: '2026-12-16T17:00:00.000Z', ends_at: '2026-12-16T21:00:00.000Z' },
        { starts_at: '2026-12-16T21:00:00.000Z', ends_at: '2026-12-17T01:00:00.000Z' },
        { starts_at: '2026-12-17T13:00:00.000Z', ends_at: '2026-12-17T17:00:00.000Z' },
        { starts_at: '2026-12-17T17:00:00.000Z', ends_at: '2026-12-17T21:00:00.000Z' },
        { starts_at: '2026-12-17T21:00:00.000Z', ends_at: '2026-12-18T01:00:00.000Z' },
        { starts_at: '2026-12-18T13:00:00.000Z', ends_at: '2026-12-18T17:00:00.000Z' },
        { starts_at: '2026-12-18T17:00:00.000Z', ends_at: '2026-12-18T21:00:00.000Z' },
        { starts_at: '2026-12-18T21:00:00.000Z', ends_at: '2026-12-19T01:00:00.000Z' },
        { starts_at: '2026-12-21T13:00:00.000Z', ends_at: '2026-12-21T17:00:00.000Z' },
        { starts_at: '2026-12-21T17:00:00.000Z', ends_at: '2026-12-21T21:00:00.000Z' },
        { starts_at: '2026-12-21T21:00:00.000Z', ends_at: '2026-12-22T01:00:00.000Z' },
        { starts_at: '2026-12-22T13:00:00.000Z', ends_at: '2026-12-22T17:00:00.000Z' },
        { starts_at: '2026-12-22T17:00:00.000Z', ends_at: '2026-12-22T21:00:00.000Z' },
        { starts_at: '2026-12-22T21:00:00.000Z', ends_at: '2026-12-23T01:00:00.000Z' },
        { starts_at: '2026-12-23T13:00:00.000Z', ends_at: '2026-12-23T17:00:00.000Z' },
        { starts_at: '2026-12-23T17:00:00.000Z', ends_at: '2026-12-23T21:00:00.000Z' },
        { starts_at: '2026-12-23T21:00:00.000Z', ends_at: '2026-12-24T01:00:00.000Z' },
        { starts_at: '2026-12-24T13:00:00.000Z', ends_at: '2026-12-24T17:00:00.000Z' },
        { starts_at: '2026-12-24T17:00:00.000Z', ends_at: '2026-12-24T21:00:00.000Z' },
        { starts_at: '2026-12-24T21:00:00.000Z', ends_at: '2026-12-25T01:00:00.000Z' },
        { starts_at: '2026-12-25T13:00:00.000Z', ends_at: '2026-12-25T17:00:00.000Z' },
        { starts_at: '2026-12-25T17:00:00.000Z', ends_at: '2026-12-25T21:00:00.000Z' },
        { starts_at: '2026-12-25T21:00:00.000Z', ends_at: '2026-12-26T01:00:00.000Z' },
        { starts_at: '2026-12-28T13:00:00.000Z', ends_at: '2026-12-28T17:00:00.000Z' },
        { starts_at: '2026-12-28T17:00:00.000Z', ends_at: '2026-12-28T21:00:00.000Z' },
        { starts_at: '2026-12-28T21:00:00.000Z', ends_at: '2026-12-29T01:00:00.000Z' },
        { starts_at: '2026-12-29T13:00:00.000Z', ends_at: '2026-12-29T17:00:00.000Z' },
        { starts_at: '2026-12-29T17:00:00.000Z', ends_at: '2026-12-29T21:00:00.000Z' },
        { starts_at: '2026-12-29T21:00:00.000Z', ends_at: '2026-12-30T01:00:00.000Z' },
      ],
    },
    404: [BOOKING_LINK_NOT_FOUND],
    422: [TOKEN_TOO_LONG],
  },
  // POST /booking/{token}
  bookInstallation: {
    200: { status: 'BOOKED', booking: { starts_at: '2026-11-18T07:00:00.000Z', ends_at: '2026-11-18T11:00:00.000Z' } },
    404: [BOOKING_LINK_NOT_FOUND],
    409: [
      { name: 'this_window_has_just_been', detail: 'This window has just been fully booked; choose another one' },
      {
        name: 'the_appointment_starts_in_less',
        detail: 'The appointment starts in less than 24 hours and can no longer be moved; contact support',
      },
      { name: 'this_installation_can_no_longer', detail: 'This installation can no longer be booked through the link' },
    ],
    422: [
      {
        name: 'starts_at_not_an_offered',
        detail:
          'starts_at: not an offered window (weekdays, four-hour windows starting 08:00, 12:00 or 16:00 Europe/Berlin time, at least 24 hours ahead)',
      },
      { name: 'starts_at_invalid_iso_datetime', detail: 'starts_at: Invalid ISO datetime' },
      {
        name: 'starts_at_not_an_offered_2',
        detail:
          'starts_at: not an offered window (weekdays, four-hour windows starting 08:00, 12:00 or 16:00 America/Toronto time, at least 24 hours ahead)',
      },
    ],
  },
  // DELETE /booking/{token}
  cancelInstallationBooking: {
    200: { status: 'BOOKING_SENT', booking: null },
    404: [BOOKING_LINK_NOT_FOUND],
    409: [
      { name: 'there_is_no_booked_appointment', detail: 'There is no booked appointment to cancel' },
      {
        name: 'the_appointment_starts_in_less',
        detail: 'The appointment starts in less than 24 hours and can no longer be cancelled; contact support',
      },
    ],
    422: [TOKEN_TOO_LONG],
  },
  // GET /partner/subscriptions/{id}/change-plan/preview
  previewSubscriptionPlanChange: {
    200: {
      eligible: true,
      reasons: [],
      current_plan: {
        plan_version_id: 'abe8f999-3401-4907-afdb-70197413497d',
        name: 'Fast',
        monthly_price: '44.99',
        currency: 'EUR',
      },
      new_plan: {
        plan_version_id: '55b9dbcd-a3db-4e9f-98e3-94446a14cc34',
        name: 'Basic',
        monthly_price: '29.99',
        currency: 'EUR',
      },
      one_time_adjustment: null,
      note: 'This subscription is billed by the provider, not by this service: no invoice line or credit note is issued. Only the recurring price changes.',
    },
    404: [SUBSCRIPTION_NOT_FOUND, PLAN_VERSION_NOT_FOUND],
    422: [PLAN_VERSION_ID_MISSING],
  },
  // POST /partner/subscriptions/{id}/change-plan
  changeSubscriptionPlan: {
    200: {
      subscription_id: 'cf4d53f9-8f91-422f-98ab-30d136b9e16b',
      plan_version_id: 'df21daa8-1f08-4b48-8762-b11336a1a2db',
      bandwidth_updated: false,
      effective_date: '2026-11-16',
    },
    400: MALFORMED_IDEMPOTENCY_KEY,
    404: [SUBSCRIPTION_NOT_FOUND, PLAN_VERSION_NOT_FOUND],
    409: [
      PLAN_CHANGE_SUSPENDED,
      PLAN_CHANGE_SAME_PLAN,
      {
        name: 'this_plan_version_cannot_be',
        detail: 'This plan version cannot be chosen (it is inactive or priced in another currency)',
      },
    ],
    422: [
      { name: 'plan_version_id_invalid_uuid', detail: 'plan_version_id: Invalid UUID' },
      PLAN_VERSION_ID_MISSING,
      { name: 'body_unrecognized_key_override_reason', detail: 'body: Unrecognized key: "override_reason"' },
    ],
  },
  // POST /api/v1/admin/subscriptions/{id}/change-plan
  overrideSubscriptionPlanChange: {
    200: {
      subscription_id: '4b1dcfe6-06a8-4204-9256-40c3407625b7',
      plan_version_id: 'f8343b43-3135-44e3-a3fc-9b4a0475d47f',
      bandwidth_updated: true,
      effective_date: '2026-11-16',
    },
    400: MALFORMED_IDEMPOTENCY_KEY,
    404: [PLAN_VERSION_NOT_FOUND],
    409: [PLAN_CHANGE_SUSPENDED, PLAN_CHANGE_SAME_PLAN],
    422: [
      {
        name: 'override_reason_invalid_input_expected',
        detail: 'override_reason: Invalid input: expected string, received undefined',
      },
      {
        name: 'override_reason_too_small_expected',
        detail: 'override_reason: Too small: expected string to have >=5 characters',
      },
      {
        name: 'override_reason_must_not_contain',
        detail: 'override_reason: must not contain U+0000 or unpaired surrogate characters',
      },
    ],
  },
  // GET /api/v1/subscription/{id}/cancel/preview
  previewSubscriptionCancellation: {
    200: {
      subscription_id: '9ad0c396-d4f2-4d85-a10a-2093731444b5',
      effective_date: '2026-11-21',
      calendar_month: '2026-11',
      month_invoiced: true,
      billed_by: 'service',
      currency: 'EUR',
      lines: [
        {
          kind: 'unused_days_credit',
          description: 'Credit for unused days, 21–30 Nov 2026',
          amount: '-10.00',
          currency: 'EUR',
        },
        {
          kind: 'pending_adjustment',
          description: 'Plan change Fast → Faster, 16–30 Nov',
          amount: '4.50',
          currency: 'EUR',
        },
      ],
    },
    404: [SUBSCRIPTION_NOT_FOUND],
    409: [
      {
        name: 'already_cancelled',
        detail: 'The subscription is CANCELLED; only an ACTIVE, SUSPENDED or PENDING_INSTALL subscription can be cancelled',
      },
    ],
    422: [END_DATE_PAST],
  },
  // POST /api/v1/subscription/{id}/cancel
  cancelSubscription: {
    200: {
      subscription_id: 'ffe01673-e683-4791-bc55-65b946be51ca',
      status: 'CANCELLED',
      canceled_at: '2026-11-16T10:00:00.000Z',
      ended_at: '2026-11-30',
    },
    400: MALFORMED_IDEMPOTENCY_KEY,
    404: [SUBSCRIPTION_NOT_FOUND],
    409: [
      {
        name: 'the_subscription_is_cancelled_only',
        detail: 'The subscription is CANCELLED; only ACTIVE, SUSPENDED or PENDING_INSTALL subscriptions can be cancelled',
      },
      {
        name: 'the_subscription_is_pending_only',
        detail: 'The subscription is PENDING; only ACTIVE, SUSPENDED or PENDING_INSTALL subscriptions can be cancelled',
      },
    ],
    422: [
      END_DATE_PAST,
      { name: 'end_date_not_a_calendar', detail: 'end_date: not a calendar date (YYYY-MM-DD)' },
      { name: 'end_date_must_be_yyyy', detail: 'end_date: must be YYYY-MM-DD' },
    ],
  },
};
